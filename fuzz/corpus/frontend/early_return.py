# tensorcode: input a=int32:-20:20
def early_return(a):
    if a < 0:
        return -1
    b = a * 2
    if b > 20:
        return 20
    return b
