def scale(x, y):
    return 2 * x + y
