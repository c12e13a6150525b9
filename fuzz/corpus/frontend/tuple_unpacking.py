# tensorcode: input a=int32:-10:10 b=int32:-10:10
def tuple_unpacking(a, b):
    x, y = a, b
    x, y = y, x - y
    (p, q), r = (x, y), a
    return x * 100 + y + p - q + r
