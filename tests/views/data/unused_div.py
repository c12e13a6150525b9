# tensorcode: input a=int32:-2:2
def f(a):
    b = 1 / a
    return a
