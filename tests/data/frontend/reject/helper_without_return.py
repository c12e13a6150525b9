# expect: 10:12 'g' can reach the end of its body without a return (it would return None), called here
# inputs: a=int32:-3:3
# function: f
def g(a):
    if a > 0:
        return a


def f(a):
    return g(a) + 1
