# tensorcode: input a=int32:-3:3 x=float64:-1:1
def not_operator(a, x):
    return not a, not (a > 1), not x
