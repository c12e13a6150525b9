# expect: 4:14 the operator 'is' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return a is 1
