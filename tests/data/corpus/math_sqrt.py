# inputs: x=float64:-4:9 a=int32:0:50
import math


def math_sqrt(x, a):
    """math.sqrt: correctly rounded in every backend, ValueError below 0."""
    return math.sqrt(x) * 2 + math.sqrt(a) - math.sqrt(x * x + 1)
