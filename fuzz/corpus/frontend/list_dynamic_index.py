# tensorcode: input a=int32:-4:3
def list_dynamic_index(a):
    return [10, 20, 30, 40][a]
