# tensorcode: input a=int32:-40:40
def sigmoid_int(a):
    return sigmoid(a)
