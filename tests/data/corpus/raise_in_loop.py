# inputs: a=int32:-5:30
def raise_in_loop(a):
    # the raise ends the iterations on the paths that reach it
    acc = 0
    for i in range(6):
        acc += a + i
        if acc > 100:
            raise ArithmeticError("acc is above 100")
    return acc
