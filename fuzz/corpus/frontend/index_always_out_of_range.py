# expect: 4:12 this index is always out of range for a list of 2 elements (it lies in
# tensorcode: input a=int32:0:3
def f(a):
    return [1, 2][a + 10]
