# expect: 4:5 an expression on its own line has no effect
# tensorcode: input a=int32:0:3
def f(a):
    a + 1
    return a
