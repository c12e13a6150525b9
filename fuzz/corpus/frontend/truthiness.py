# tensorcode: input a=int32:-3:3 x=float64:-2:2
def truthiness(a, x):
    r = 0
    if a:
        r = r + 1
    if x:
        r = r + 10
    return r
