# expect: 4:5 yield is not supported
# tensorcode: input a=int32:0:3
def f(a):
    yield a
