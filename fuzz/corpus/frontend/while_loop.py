# expect: 4:5 while loops are not supported
# tensorcode: input a=int32:0:3
def f(a):
    while a > 0:
        a = a - 1
    return a
