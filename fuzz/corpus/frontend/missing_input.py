# expect: 3:10 parameter 'b' has no input domain
# tensorcode: input a=int32:0:3
def f(a, b):
    return a + b
