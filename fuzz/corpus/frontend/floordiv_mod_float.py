# tensorcode: input x=float64:-9:9 y=float64:-3:-0.5
def floordiv_mod_float(x, y):
    return x // y, x % y, x % 2.5, x // 0.75
