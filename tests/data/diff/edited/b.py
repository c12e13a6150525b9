def f(x, w):
    y = x * w + 1
    z = y + x
    return z * 2
