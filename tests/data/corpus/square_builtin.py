# inputs: a=int32:-40:40 x=float64:-3:3
def square_builtin(a, x):
    """The square builtin: an int for an int, a float for a float."""
    return square(a) - square(x - 0.5) * 3
