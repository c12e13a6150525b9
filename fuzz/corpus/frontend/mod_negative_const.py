# tensorcode: input a=int32:-40:40
def mod_negative_const(a):
    return a % -7 + a // -3
