# inputs: a=int32:-10:10
# function: second
def first(a):
    return a + 1


def second(a):
    return a * 2 if a > 0 else a - 1
