# expect: 4:12 calling 'math.sqrt' is not supported
# tensorcode: input a=int32:0:3
def f(a):
    return math.sqrt(a)
