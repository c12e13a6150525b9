# expect: 4:9 name 'b' is used before it is assigned
# tensorcode: input a=int32:0:3
def f(a):
    c = b + 1
    b = 2
    return c
