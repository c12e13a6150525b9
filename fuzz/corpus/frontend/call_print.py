# expect: 4:5 calling 'print' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    print(a)
    return a
