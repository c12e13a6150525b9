# tensorcode: input x=float64:-1:1
def damp(x):
    s = x
    for i in range(40):
        s = s * 0.75 + x
    return s
