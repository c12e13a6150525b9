# tensorcode: input a=int32:-10:10 b=int32:-10:10
def return_tuple(a, b):
    return a + b, a - b
