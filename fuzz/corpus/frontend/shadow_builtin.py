# expect: 4:5 'relu' is a builtin the compiler provides
# tensorcode: input a=int32:0:3
def f(a):
    relu = a
    return relu
