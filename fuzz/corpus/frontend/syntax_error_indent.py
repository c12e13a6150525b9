# expect: 5:7 unexpected indent
# tensorcode: input a=int32:0:3
def f(a):
    b = a
      return b
