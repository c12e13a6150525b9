# expect: 4:12 the operator '&' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return a & 1
