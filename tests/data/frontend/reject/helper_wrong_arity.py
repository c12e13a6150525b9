# expect: 8:12 g() takes 2 positional arguments but 1 was given
# inputs: a=int32:-3:3
# function: f
def g(a, b):
    return a + b

def f(a):
    return g(a)
