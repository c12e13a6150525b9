# tensorcode: input a=int32:-30:30
def ifexp_nested(a):
    return -1 if a < 0 else (0 if a == 0 else (1 if a < 10 else 2))
