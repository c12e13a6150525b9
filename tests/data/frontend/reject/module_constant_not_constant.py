# expect: 3:13 a module-level assignment must give a constant: only numbers, earlier constants
# inputs: a=int32:0:3
LIMIT = int(input())


def f(a):
    return a
