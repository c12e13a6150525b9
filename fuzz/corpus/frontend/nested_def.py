# expect: 4:5 nested function definitions (closures) are not supported
# tensorcode: input a=int32:0:3
def f(a):
    def g():
        return a
    return g()
