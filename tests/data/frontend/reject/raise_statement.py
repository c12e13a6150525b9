# expect: 3:5 'f' raises for every input in the domains
# inputs: a=int32:0:3
def f(a):
    raise ValueError
