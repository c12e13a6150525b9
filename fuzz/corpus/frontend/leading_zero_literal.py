# expect: 4:16 leading zeros in decimal integer literals are not permitted; use an 0o
# tensorcode: input a=int32:0:3
def f(a):
    return a + 012
