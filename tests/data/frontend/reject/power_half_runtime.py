# expect: 4:12 'x ** 0.5' of a value known only at run time is not supported: CPython computes it with C's pow()
# inputs: x=float64:0:4
def f(x):
    return x ** 0.5 + 1
