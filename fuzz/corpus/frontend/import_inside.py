# expect: 4:5 imports are not supported
# tensorcode: input a=int32:0:3
def f(a):
    import math
    return a
