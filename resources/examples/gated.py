# A gated formula: a smooth gate blends a ReLU response with the raw input,
# and a hard comparison switches the whole thing off below a threshold.
# Compile it with --semantics hybrid to train through the comparison.
# tensorcode: input x=float64:-4:4
# tensorcode: input g=float64:-6:6
def gated(x, g):
    gate = sigmoid(g)
    response = relu(2 * x - 1)
    blended = gate * response + (1 - gate) * x
    return blended if x > -3 else 0.0
