# tensorcode: input a=int32:-30:30 b=int32:1:9
def true_division_int(a, b):
    return a / b + b / 4
