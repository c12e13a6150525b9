# tensorcode: input a=int32:-7:7
def list_index_out_of_range(a):
    # indices outside [-4, 3] raise IndexError in CPython and fail the gather
    table = [5, -1, 8, 2]
    return table[a]
