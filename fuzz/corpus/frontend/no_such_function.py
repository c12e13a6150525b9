# expect: 4:5 no function named 'h' in this file (it defines
# tensorcode: input a=int32:0:3
# function: h
def f(a):
    return a
