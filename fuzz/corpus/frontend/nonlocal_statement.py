# expect: 4:5 nonlocal statements are not supported
# tensorcode: input a=int32:0:3
def f(a):
    nonlocal b
    return a
