# tensorcode: input x=float64:-10:10 y=float64:0.5:4
def arith_float(x, y):
    return x * y + x / y - (y - x) * 0.1
