# expect: 5:26 range() step must be known at compile time
# inputs: a=int32:1:3
def f(a):
    s = 0
    for i in range(0, 9, a):
        s = s + i
    return s
