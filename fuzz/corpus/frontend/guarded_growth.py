# tensorcode: input a=int32:-50:50 b=int32:1:9
def guarded_growth(a, b):
    # the guards bound x and y, so the doublings stay exact
    x = a
    y = b
    for i in range(60):
        if x < 1000 and x > -1000:
            x = x * 2 + 1
        y = y * 3 if y <= 10000 else y - 7
        if y > 1000000:
            break
    return x, y
