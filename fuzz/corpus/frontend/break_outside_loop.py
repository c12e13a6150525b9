# expect: 4:5 'break' outside a loop
# tensorcode: input a=int32:0:3
def f(a):
    break
    return a
