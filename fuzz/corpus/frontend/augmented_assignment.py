# tensorcode: input a=int32:-20:20 b=int32:1:5
def augmented_assignment(a, b):
    x = a
    x += 3
    x -= b
    x *= 2
    y = x
    y //= b
    z = x
    z %= b
    w = a
    w **= 2
    v = a
    v /= b
    return x, y, z, w, v
