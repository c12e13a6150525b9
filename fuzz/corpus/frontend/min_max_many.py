# tensorcode: input a=int32:-6:6 b=int32:-6:6 c=int32:-6:6
def min_max_many(a, b, c):
    return min(a, b, c), max(a, b, c, 0), max([a, b * 2, c]), min((c, a))
