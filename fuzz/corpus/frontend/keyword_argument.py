# expect: 4:22 keyword arguments ('key=') are not supported in calls
# tensorcode: input a=int32:0:3
def f(a):
    return max(a, 2, key=abs)
