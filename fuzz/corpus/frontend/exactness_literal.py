# expect: 4:16 integer literal 18014398509481984 is beyond 2^53, where float64 stops
# tensorcode: input a=int32:0:3
def f(a):
    return a + 18014398509481984
