# expect: 5:16 'math.inf' is not supported: a compiled function computes with finite numbers only
# inputs: a=float64:-3:3
import math
def f(a):
    return a < math.inf
