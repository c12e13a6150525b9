# tensorcode: input a=int32:-10:10 x=float64:-3:3
def relu_builtin(a, x):
    return relu(a - 3), relu(x) * 2
