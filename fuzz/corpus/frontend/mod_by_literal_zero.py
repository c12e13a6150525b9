# expect: 5:12 division by zero
# tensorcode: input a=int32:0:3
def f(a):
    b = 0
    return a % b
