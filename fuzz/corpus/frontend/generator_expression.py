# expect: 4:16 generator expressions are not supported
# tensorcode: input a=int32:0:3
def f(a):
    return max(i for i in range(3))
