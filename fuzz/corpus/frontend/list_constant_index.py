# tensorcode: input a=int32:-10:10
def list_constant_index(a):
    arr = [a, a * 2, a * 3, 7]
    return arr[0] + arr[-1] + arr[2] - arr[-3]
