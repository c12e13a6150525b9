# expect: 5:14 slices are not supported
# tensorcode: input a=int32:0:3
def f(a):
    b = [1, 2, 3]
    return b[0:2][0]
