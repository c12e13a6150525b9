# tensorcode: input a=int32:-10:10 b=int32:-10:10
def min_max_two(a, b):
    return min(a, b), max(a, b), min(a, 3), max(-2, b)
