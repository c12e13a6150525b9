# expect: 4:19 the message of a raise or assert must be a string literal: an f-string is computed at run time
# inputs: a=int32:0:3
def f(a):
    assert a > 0, f"a is {a}"
    return a
