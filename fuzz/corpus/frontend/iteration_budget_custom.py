# expect: 6:5 loop expansion exceeds the iteration budget of 10 expanded iterations
# tensorcode: input a=int32:0:3
# max-iterations: 10
def f(a):
    s = 0
    for i in range(11):
        s = s + a
    return s
