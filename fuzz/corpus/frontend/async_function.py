# expect: 3:1 async functions are not supported
# tensorcode: input a=int32:0:3
async def f(a):
    return a
