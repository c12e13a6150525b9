# tensorcode: input a=int32:-5:5
def pass_statement(a):
    if a > 0:
        pass
    else:
        a = -a
    for i in range(2):
        pass
    return a
