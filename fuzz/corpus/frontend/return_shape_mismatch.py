# expect: 6:5 this return gives a list of 2 values but an earlier return gives a num
# tensorcode: input a=int32:0:3
def f(a):
    if a > 1:
        return a
    return (a, a)
