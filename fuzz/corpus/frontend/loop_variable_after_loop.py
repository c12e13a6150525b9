# tensorcode: input a=int32:-5:5
def loop_variable_after_loop(a):
    for i in range(4):
        a = a + i
    return a + i
