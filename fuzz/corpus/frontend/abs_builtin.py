# tensorcode: input a=int32:-20:20 x=float64:-5:5
def abs_builtin(a, x):
    return abs(a), abs(x), abs(a - 3) + abs(-2)
