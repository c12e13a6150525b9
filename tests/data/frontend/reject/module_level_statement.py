# expect: 3:1 only function definitions, imports of math and constants (NAME = number) are supported at module level
# inputs: a=int32:0:3
print("loaded")


def f(a):
    return a
