# expect: 4:20 range() arguments must be integers, not floats
# tensorcode: input a=int32:0:3
def f(a):
    for i in range(2.5):
        a = a + 1
    return a
