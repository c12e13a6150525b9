def f(x):
    s = 0.0
    for i in range(3):
        s = s + x * i
    return s
