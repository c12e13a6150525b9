# tensorcode: input a=int32:-10:10 b=int32:-10:10
def early_return_nested(a, b):
    s = 0
    for i in range(5):
        if a > i:
            if b < i:
                return s + 100 * i
            s = s + b
        else:
            s = s - 1
    return s
