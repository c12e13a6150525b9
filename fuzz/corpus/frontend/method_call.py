# expect: 4:12 calling 'a.bit_length' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return a.bit_length()
