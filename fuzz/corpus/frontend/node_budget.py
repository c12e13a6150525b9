# expect: 6:9 the circuit needs more than 50 nodes (the node budget)
# tensorcode: input a=int32:0:3
# max-nodes: 50
def f(a):
    s = 0
    for i in range(100):
        s = s + a * i
    return s
