# expect: 4:12 assignment expressions ('
# tensorcode: input a=int32:0:3
def f(a):
    return (b := a)
