# expect: 4:12 '**' is supported only with a small non-negative integer literal expon
# tensorcode: input a=int32:0:3
def f(a):
    return 2 ** a
