# expect: 4:12 the operator '&' is not supported
# inputs: a=int32:0:3
def f(a):
    return a & 1
