# expect: 4:9 string literals are not supported
# tensorcode: input a=int32:0:3
def f(a):
    b = "text"
    return a
