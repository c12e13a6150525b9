# tensorcode: input a=int32:-10:10
def chained_compare(a):
    return 1 if 0 < a < 5 else 0
