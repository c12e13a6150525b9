# tensorcode: input a=int32:-10:10
def loop_nested(a):
    s = 0
    for i in range(10):
        for j in range(10):
            if (i + j) % 3 == 0:
                s = s + a * i - j
    return s
