# tensorcode: input x=float64:-3:3
def return_in_both_branches(x):
    if x > 1:
        return x * 2
    else:
        return -x
