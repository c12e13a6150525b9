# expect: 4:12 integer multiplication may reach 1e+18 given the input domains, beyond
# tensorcode: input a=int32:-1000000:1000000
def f(a):
    return a * a * a
