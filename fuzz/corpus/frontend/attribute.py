# expect: 4:12 attribute access ('a.real') is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return a.real
