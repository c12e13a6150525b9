# tensorcode: input a=int32:-10:10
def loop_continue(a):
    s = 0
    for i in range(12):
        if i % 3 == 0:
            continue
        if a > i:
            continue
        s = s + i
    return s
