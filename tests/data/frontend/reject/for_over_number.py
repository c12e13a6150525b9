# expect: 4:14 a for loop must iterate over range(...) or over a literal list
# inputs: a=int32:0:3
def f(a):
    for i in a:
        a = a + 1
    return a
