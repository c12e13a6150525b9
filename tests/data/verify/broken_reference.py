# A syntax error on line 3.
def choose(a):
    return 10 if a > 4 else
