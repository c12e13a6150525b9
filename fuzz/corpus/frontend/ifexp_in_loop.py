# tensorcode: input a=int32:-10:10
def ifexp_in_loop(a):
    s = 0
    for i in range(6):
        s = s + (i if a > i else -i)
    return s
