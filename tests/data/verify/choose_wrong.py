# Disagrees with choose at a = 5.
def choose(a):
    return 10 if a > 5 else 12
