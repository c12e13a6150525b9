# A gated product: the hybrid gradient of the comparison is the gap
# between the branches, the exact one is zero.
def gate(x, w):
    if x > 4:
        y = w * x
    else:
        y = 0.0
    return y
