# tensorcode: input a=int32:-100:100
def loop_sum(a):
    s = 0
    for i in range(10):
        s += a * i
    return s
