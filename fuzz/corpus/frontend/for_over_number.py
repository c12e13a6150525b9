# expect: 4:14 a for loop must iterate over range(...) with literal bounds or over a
# tensorcode: input a=int32:0:3
def f(a):
    for i in a:
        a = a + 1
    return a
