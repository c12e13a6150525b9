# expect: 4:12 division by zero
# inputs: a=int32:0:3
def f(a):
    return a / 0
