# expect: 6:12 name 'y' might be unbound here
# tensorcode: input a=int32:0:3
def f(a):
    if a > 1:
        y = 2
    return y
