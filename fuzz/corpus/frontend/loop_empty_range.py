# tensorcode: input a=int32:-5:5
def loop_empty_range(a):
    s = a
    for i in range(5, 5):
        s = s + 1000
    for i in range(3, 0):
        s = s + 1000
    return s
