# expect: 4:5 this raise can run for inputs in the domains
# inputs: a=int32:0:3
def f(a):
    raise ValueError
