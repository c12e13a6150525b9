def f(x):
    s = 0.0
    for i in range(5):
        s = s + x * i
    return s
