# tensorcode: input a=int32:-5:5 c=int32:0:2
def tuple_dynamic_index(a, c):
    t = (a, a * a, a - 3)
    return t[c]
