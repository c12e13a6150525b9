# expect: 5:12 calling 'math.asin' is not supported yet: of the math module a compiled function can use pi, e, tau, floor
# inputs: a=float64:0:3
import math
def f(a):
    return math.asin(a)
