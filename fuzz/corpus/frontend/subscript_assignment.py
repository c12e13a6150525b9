# expect: 5:5 assigning to a list element ('a[i] = v') is not supported
# tensorcode: input a=int32:0:3
def f(a):
    b = [1, 2]
    b[0] = a
    return b[0]
