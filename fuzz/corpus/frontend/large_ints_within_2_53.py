# tensorcode: input a=int32:-100000:100000
def large_ints_within_2_53(a):
    return a * a * a + 7
