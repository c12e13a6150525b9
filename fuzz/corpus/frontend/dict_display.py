# expect: 4:9 dictionaries and sets are not supported
# tensorcode: input a=int32:0:3
def f(a):
    d = {1: a}
    return a
