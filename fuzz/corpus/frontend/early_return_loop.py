# tensorcode: input a=int32:-5:30
def early_return_loop(a):
    for i in range(10):
        if i * i > a:
            return i
    return -1
