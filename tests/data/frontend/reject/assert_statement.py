# expect: 4:5 this assert can fail for inputs in the domains
# inputs: a=int32:0:3
def f(a):
    assert a > 0
    return a
