# expect: 8:12 'v' holds values of different shapes on different paths (a number or l
# tensorcode: input a=int32:0:3
def f(a):
    if a > 1:
        v = [1, 2]
    else:
        v = 3
    return v
