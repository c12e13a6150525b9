# expect: 4:19 the operator 'in' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return 1 if a in (1, 2) else 0
