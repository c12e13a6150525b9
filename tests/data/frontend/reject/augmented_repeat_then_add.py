# expect: 9:14 the operator '+' cannot be applied to a list: use it on the elements
# inputs: a=int32:0:10
# The first iteration turns s into a tuple (`s *= x, y` repeats it); the
# second then adds a number to it, which CPython refuses too. Found by the
# frontend fuzzer, which saw an internal error here.
def f(a):
    s = 1
    for i in range(2, 4):
        s *= s * 2 + a, -i
    return s
