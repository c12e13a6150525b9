# expect: 4:5 raise statements are not supported
# tensorcode: input a=int32:0:3
def f(a):
    raise ValueError
