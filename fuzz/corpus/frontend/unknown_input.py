# expect: 3:5 --input 'c' names no parameter of 'f' (its parameters
# tensorcode: input a=int32:0:3 c=int32:0:3
def f(a):
    return a
