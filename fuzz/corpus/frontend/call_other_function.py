# expect: 9:12 calling another function ('g') is not supported
# tensorcode: input a=int32:0:3
# function: f
def g(a):
    return a


def f(a):
    return g(a) + 1
