# expect: 4:26 range() step must not be zero
# tensorcode: input a=int32:0:3
def f(a):
    for i in range(0, 5, 0):
        a = a + 1
    return a
