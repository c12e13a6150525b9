# tensorcode: input a=int32:-4:4 b=int32:-4:4 c=int32:-4:4
def chained_compare_long(a, b, c):
    if a <= b < c != 2:
        return a + b + c
    return -1
