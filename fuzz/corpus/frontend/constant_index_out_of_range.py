# expect: 4:12 index 3 is out of range for a list of 3 elements
# tensorcode: input a=int32:0:3
def f(a):
    return [1, 2, 3][3]
