# expect: 4:9 list comprehensions are not supported
# tensorcode: input a=int32:0:3
def f(a):
    b = [i * a for i in range(3)]
    return b[0]
