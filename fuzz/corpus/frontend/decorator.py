# expect: 3:1 decorators are not supported
# tensorcode: input a=int32:0:3
@staticmethod
def f(a):
    return a
