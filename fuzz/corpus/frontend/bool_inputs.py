# tensorcode: input p=bool q=bool a=int32:-3:3
def bool_inputs(p, q, a):
    # bool is an int in Python: True + True == 2
    return p + q, p * a, (a if p and not q else -a), p == q
