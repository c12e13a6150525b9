# expect: 4:5 nested function definitions (closures) are not supported
# inputs: a=int32:0:3
def f(a):
    def g():
        return a
    return g()
