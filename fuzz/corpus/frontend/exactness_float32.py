# expect: 5:12 integer multiplication may reach 25000000 given the input domains, bey
# tensorcode: input a=int32:-5000:5000
# dtype: float32
def f(a):
    return a * a
