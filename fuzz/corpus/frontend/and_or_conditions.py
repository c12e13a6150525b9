# tensorcode: input a=int32:-10:10 b=int32:-10:10
def and_or_conditions(a, b):
    if a > 0 and b > 0 or a == b:
        return 1
    if not (a < 0 or b < 0):
        return 2
    return 3
