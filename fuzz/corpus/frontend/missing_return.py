# expect: 3:5 'f' can reach the end of its body without a return (it would return No
# tensorcode: input a=int32:0:3
def f(a):
    if a > 1:
        return a
