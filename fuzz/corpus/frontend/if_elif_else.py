# tensorcode: input a=int32:-50:50
def if_elif_else(a):
    if a < -10:
        r = -1
    elif a < 0:
        r = 0
    elif a == 0:
        r = 100
    elif a <= 10:
        r = a * 2
    else:
        r = a - 10
    return r
