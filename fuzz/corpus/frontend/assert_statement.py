# expect: 4:5 assert statements are not supported
# tensorcode: input a=int32:0:3
def f(a):
    assert a > 0
    return a
