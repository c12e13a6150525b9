# expect: 4:5 try statements are not supported
# tensorcode: input a=int32:0:3
def f(a):
    try:
        return 1 // a
    except ZeroDivisionError:
        return 0
