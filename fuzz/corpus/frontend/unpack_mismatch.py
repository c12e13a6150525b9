# expect: 4:5 cannot unpack 3 values into 2 names
# tensorcode: input a=int32:0:3
def f(a):
    x, y = a, a, a
    return x
