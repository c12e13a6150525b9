# expect: 6:9 loop expansion exceeds the iteration budget of 1024 expanded iteration
# tensorcode: input a=int32:0:3
def f(a):
    s = 0
    for i in range(10):
        for j in range(102):
            s = s + a
    return s
