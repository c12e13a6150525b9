# expect: 3:1 importing 'numpy' is not supported
# inputs: a=int32:0:3
import numpy as np


def f(a):
    return a
