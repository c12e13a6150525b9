# tensorcode: input a=int32:-3:12
def early_return_for_else(a):
    for i in range(5):
        if i == a:
            return i * 10
    else:
        return -1
