# tensorcode: input x=float64:-5:5 g=float64:-5:5
def gated_formula(x, g):
    gate = sigmoid(g)
    h = relu(x * 2 - 1)
    return gate * h + (1 - gate) * x if x > -4 else 0.0
