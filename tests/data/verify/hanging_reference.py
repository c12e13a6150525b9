# Never returns: verify must stop it with an error, not hang.
def choose(a):
    n = 0
    while True:
        n += 1
