# expect: 5:20 range() bounds must be known at compile time
# tensorcode: input a=int32:0:3
def f(a):
    s = 0
    for i in range(a):
        s = s + i
    return s
