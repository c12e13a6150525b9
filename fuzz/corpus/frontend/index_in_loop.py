# tensorcode: input a=int32:-10:10
def index_in_loop(a):
    w = [1, 4, 9, 16, 25]
    s = 0
    for i in range(4):
        s = s + w[i + 1] - w[i] * a
    return s
