# expect: 3:9 default parameter values are not supported
# tensorcode: input a=int32:0:3
def f(a=1):
    return a
