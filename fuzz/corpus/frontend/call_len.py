# expect: 4:12 calling 'len' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return len(a)
