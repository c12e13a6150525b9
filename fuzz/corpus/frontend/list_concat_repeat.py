# tensorcode: input a=int32:-3:3 b=int32:0:4
def list_concat_repeat(a, b):
    row = [a] * 3 + [a + 1, a + 2]
    return row[b]
