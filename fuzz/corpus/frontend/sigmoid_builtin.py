# tensorcode: input x=float64:-20:20
def sigmoid_builtin(x):
    return sigmoid(x), sigmoid(-x * 0.5)
