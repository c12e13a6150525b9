# tensorcod"e: input a=int32:-0:10
def loop_rat_stop(a):
    s = 1
    for i in range(2, 8):
        s *=s * 2 + a,- i
    return s
