# tensorcode: input a=int32:-5:15
def continue_with_early_return(a):
    s = 0
    for i in range(10):
        if i % 2 == 1:
            continue
        s = s + i
        if s > a:
            return -s
    return s
