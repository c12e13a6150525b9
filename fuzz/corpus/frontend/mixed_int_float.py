# tensorcode: input a=int32:-10:10 x=float64:-1:1
def mixed_int_float(a, x):
    return a + x, a * x, a - 0.5, x // 1
