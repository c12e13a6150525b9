# expect: 4:13 assignment expressions ('
# inputs: a=int32:0:3
def f(a):
    return (b := a)
