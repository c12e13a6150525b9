# expect: 4:12 len() of a number: only lists and tuples have a length
# inputs: a=int32:0:3
def f(a):
    return len(a)
