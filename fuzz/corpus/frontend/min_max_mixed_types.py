# tensorcode: input a=int32:-3:3 x=float64:-3:3
def min_max_mixed_types(a, x):
    # ties keep the first argument, as CPython does
    return min(a, x), max(x, a)
