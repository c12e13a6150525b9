# tensorcode: input a=int32:-10:10
def chained_assignment(a):
    x = y = a * 2
    return x + y
