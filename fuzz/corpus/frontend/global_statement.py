# expect: 4:5 global statements are not supported
# tensorcode: input a=int32:0:3
def f(a):
    global b
    return a
