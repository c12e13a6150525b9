# tensorcode: input a=int32:-10:10
def loop_triangular(a):
    # an inner range bound may be an enclosing loop's variable
    s = 0
    for i in range(6):
        for j in range(i):
            s = s + a + j
    return s
