# inputs: x=float64:-4:4 n=int32:-3:5
def assert_checked(x, n):
    # each assert fails the cases where its condition is false; after it the
    # condition holds (n is not 0, so the division cannot fail)
    assert n != 0, "n must not be zero"
    assert x * n < 10
    return x / n
