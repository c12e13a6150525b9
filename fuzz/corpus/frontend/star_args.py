# expect: 3:7 '*args' parameters are not supported
# tensorcode: input a=int32:0:3
def f(*a):
    return 1
