# expect: 4:9 lambda expressions are not supported
# tensorcode: input a=int32:0:3
def f(a):
    g = lambda x: x + 1
    return a
