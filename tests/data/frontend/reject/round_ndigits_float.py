# expect: 4:12 round(x, 2) needs |x| * 10^2 below 2^50
# inputs: a=float64:-1e14:1e14
def f(a):
    return round(a, 2)
