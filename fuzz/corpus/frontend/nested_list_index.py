# tensorcode: input i=int32:0:2 j=int32:-3:2
def nested_list_index(i, j):
    table = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    return table[i][j]
