# expect: 5:12 this index is always out of range for a list of 1 elements (it lies in [1, 1])
# inputs: a=int32:0:3
def f(a):
    t = [5]
    return t[a < 5]
