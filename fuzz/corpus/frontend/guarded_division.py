# tensorcode: input x=float64:-4:4 b=int32:-2:2
def guarded_division(x, b):
    if b == 0:
        return 0.0
    return x / b
