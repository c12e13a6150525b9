# A division on the untaken side of a comparison: at x = 1 the hybrid
# gradient fails (its jump term needs 1 / (x - 1)); at x = 1.5 the lazy run
# skips the division while the hybrid gradient's forward pass computes it.
# tensorcode: input x=float64:-4:4
def near_pole(x):
    return 1 / (x - 1) if x > 2 else x * x
