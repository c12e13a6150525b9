# tensorcode: input x=float64:-2:2
def return_list(x):
    return [x, x * 2, x * x, 1.5]
