# tensorcode: input a=int32:0:12
def loop_break_inner_only(a):
    s = 0
    for i in range(4):
        for j in range(6):
            if i + j > a:
                break
            s = s + 1
        s = s * 2
    return s
