# tensorcode: input a=int32:-6:6
def index_guarded(a):
    arr = [3, 1, 4]
    return arr[a] if 0 <= a < 3 else -1
