# tensorcode: input a=int32:-20:20 b=int32:-20:20
def nested_if(a, b):
    r = 0
    if a > 0:
        if b > 0:
            r = a + b
        else:
            r = a - b
    else:
        if b > a:
            r = b
    return r
