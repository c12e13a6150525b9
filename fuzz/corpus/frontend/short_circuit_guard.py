# tensorcode: input a=int32:-20:20 b=int32:-4:4
def short_circuit_guard(a, b):
    # the division only runs when b != 0, as in CPython
    if b != 0 and a // b > 1:
        return a // b
    return 0
