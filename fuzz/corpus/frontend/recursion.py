# expect: 4:12 recursion is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return f(a - 1) if a > 0 else 0
