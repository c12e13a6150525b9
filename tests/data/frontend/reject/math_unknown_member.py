# expect: 3:18 cannot import name 'sqrtt' from 'math'
# inputs: a=float64:0:3
from math import sqrtt


def f(a):
    return a
