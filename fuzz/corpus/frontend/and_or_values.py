# tensorcode: input a=int32:-3:3 b=int32:-3:3
def and_or_values(a, b):
    # Python's and/or return an operand, not a bool
    return (a and b), (a or b), (a and b or 7)
