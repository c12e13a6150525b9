# The unused division is not computed by the circuit (contract section 4),
# but CPython raises at a = 0: verify must report exactly that case.
def unused_division(a):
    t = 1 / a
    return a + 1
