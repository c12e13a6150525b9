# expect: 7:5 the file defines several functions (f, g)
# tensorcode: input a=int32:0:3
def f(a):
    return a


def g(a):
    return a
