# tensorcode: input a=int32:-30:30 b=int32:-10:10
def power_int(a, b):
    return a ** 3 + b ** 2 + a ** 0 + b ** 1
