# tensorcode: input a=int32:-10:10
def unused_assignment(a):
    t = a * 2
    return a + 1
