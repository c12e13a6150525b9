# expect: 4:12 '(' was never closed
# tensorcode: input a=int32:0:3
def f(a):
    return (a + 1
