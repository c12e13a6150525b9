# tensorcode: input a=int32:-5:5
def number_literals(a):
    return a + 0x10 + 0o7 + 0b11 + 1_000 + 1e3 + 2.5e-1 + .5
