# expect: 4:16 name 'b' is not defined
# tensorcode: input a=int32:0:3
def f(a):
    return a + b
