# tensorcode: input a=int32:-5:5 b=int32:-5:5
def comparisons(a, b):
    return (a < b, a <= b, a > b, a >= b, a == b, a != b)
