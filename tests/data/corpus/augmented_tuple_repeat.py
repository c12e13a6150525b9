# inputs: a=int32:-8:8
# An augmented assignment whose right side is a tuple repeats it, as
# `s = s * (a, 1)` would: s becomes the tuple (a, 1, a, 1). The resolver
# once typed `s` as a number here, and the lowering then stopped with an
# internal error (found by the frontend fuzzer).
def augmented_tuple_repeat(a):
    s = 2
    s *= a, 1
    return s
