# tensorcode: input a=int32:-10:10
def loop_negative_step(a):
    s = 0
    for i in range(10, 0, -3):
        s = s * 10 + i + a
    for j in range(-1, -6, -2):
        s = s - j
    return s
