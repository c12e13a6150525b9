# expect: 4:16 complex number literals are not supported; use real numbers
# tensorcode: input a=int32:0:3
def f(a):
    return a + 2j
