# expect: 4:15 invalid syntax
# tensorcode: input a=int32:0:3
def f(a):
    return a +
