# expect: 5:12 index 1 is out of range for a list of 1 elements
# inputs: a=int32:0:3
def f(a):
    t = [5]
    return t[a < 5]
