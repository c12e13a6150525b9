# expect: 5:14 this range() may run 5000 iterations given the input domains, beyond the iteration budget
# inputs: a=int32:0:5000
def f(a):
    s = 0
    for i in range(a):
        s = s + i
    return s
