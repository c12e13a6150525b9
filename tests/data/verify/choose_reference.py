# An independent formulation of choose, for --reference.
def reference(a):
    if a >= 5:
        return 10
    return 12
