# one line more above: every position moves, the circuit does not
def f(x, w):
    s = 0.0
    for i in range(3):
        s = s + x * w + i
    return s * 2 + 1
