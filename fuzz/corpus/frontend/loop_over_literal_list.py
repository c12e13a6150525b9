# tensorcode: input a=int32:-20:20
def loop_over_literal_list(a):
    s = 0
    for w in [3, -2, 5, 1]:
        s = s + w * a
    for p, q in ((1, 2), (3, 4)):
        s = s + p * q
    return s
