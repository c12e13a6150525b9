# tensorcode: input a=int32:-50:50 b=int32:-50:50
def arith_int(a, b):
    return a * 3 - b + 7 * (a - b) - -b
