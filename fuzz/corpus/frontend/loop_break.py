# tensorcode: input a=int32:-5:60
def loop_break(a):
    total = 0
    for i in range(20):
        if total > a:
            break
        total = total + i
    return total
