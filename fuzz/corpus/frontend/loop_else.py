# tensorcode: input a=int32:0:20
def loop_else(a):
    found = -1
    for i in range(8):
        if i * 3 == a:
            found = i
            break
    else:
        found = 99
    return found
