# expect: 3:10 type annotations other than int, float and bool are not supported here
# tensorcode: input a=int32:0:3
def f(a: list):
    return a
