# tensorcode: input x=float64:-1:1
# tensorcode: input y=float64:-1:1
def grid(x, y):
    s = 0.0
    for i in range(15):
        for j in range(12):
            t = x * i - y * j
            s = s + (t if t > 0 else -0.5 * t)
    return s
