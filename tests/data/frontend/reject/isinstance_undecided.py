# expect: 6:12 isinstance() cannot be decided while compiling here: this value may be int or float
# inputs: a=int32:-3:3
def f(a):
    x = a if a > 0 else 0.5
    # x is an int on one path and a float on the other
    return isinstance(x, int)
