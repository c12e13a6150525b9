# x / 10 rounds once; the artifact tenth.json computes x * 0.1, which differs in the last bit for some x.
def tenth(x):
    return x / 10
