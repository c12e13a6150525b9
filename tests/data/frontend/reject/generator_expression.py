# expect: 4:16 generator expressions are not supported
# inputs: a=int32:0:3
def f(a):
    return max(i for i in range(3))
