# tensorcode: input a=int32:-40:40
def power_float(a):
    # float ** n is repeated multiplication; glibc's pow() (which CPython
    # calls) can differ from it in the last bit, so the bases here are
    # quarter-integers whose powers are exact either way
    x = a * 0.25
    return x ** 2 + x ** 1 + x ** 0, x ** 3
