# expect: 4:12 list indices must be integers, not floats
# tensorcode: input a=int32:0:3
def f(a):
    return [1, 2, 3][0.5 * a]
