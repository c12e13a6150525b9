# tensorcode: input a=int32:-5:5
def return_tuple_branches(a):
    if a > 0:
        return (a, 1)
    return (0, -a)
