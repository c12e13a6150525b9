# expect: 3:1 only function definitions are supported at module level
# tensorcode: input a=int32:0:3
LIMIT = 3


def f(a):
    return a
