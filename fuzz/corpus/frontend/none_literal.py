# expect: 4:12 None is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return None
