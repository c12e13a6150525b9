# tensorcode: input a=int32:-10:10
def loop_range_start_stop(a):
    s = 1
    for i in range(2, 8):
        s = s * 2 + a - i
    return s
