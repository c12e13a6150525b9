# expect: 3:1 decorators are not supported
# inputs: a=int32:0:3
@staticmethod
def f(a):
    return a
