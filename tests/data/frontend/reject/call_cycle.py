# expect: 5:12 recursion is not supported: 'f' calls 'g', which calls 'f'
# inputs: a=int32:0:3
# function: f
def g(a):
    return f(a - 1) if a > 0 else 0


def f(a):
    return g(a) + 1
