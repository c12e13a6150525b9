# expect: 3:1 class definitions are not supported
# tensorcode: input a=int32:0:3
class K:
    pass


def f(a):
    return a
