# tensorcode: input a=int32:-10:10
def conditional_assignment_both(a):
    if a % 2 == 0:
        y = a // 2
        z = 1
    else:
        y = 3 * a + 1
        z = 0
    return y + z
