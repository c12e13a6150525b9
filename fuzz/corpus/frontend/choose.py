# tensorcode: input a=int32:-128:127
def choose(a):
    return 10 if a > 4 else 12
