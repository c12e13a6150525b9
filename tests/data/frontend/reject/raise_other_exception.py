# expect: 5:15 raise is supported with a builtin exception class and a literal message
# inputs: a=int32:0:9
def f(a):
    if a > 5:
        raise MyError("a is too large")
    return a
