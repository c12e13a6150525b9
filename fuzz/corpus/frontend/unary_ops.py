# tensorcode: input a=int32:-100:100 b=float64:-5:5
def unary_ops(a, b):
    return -a + (+b) - (-(-a)) + -(a * 2)
