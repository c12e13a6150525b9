# expect: 3:1 imports are not supported
# tensorcode: input a=int32:0:3
import math


def f(a):
    return a
