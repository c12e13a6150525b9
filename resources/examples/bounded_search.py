# A bounded search with an early return: the smallest k in 0..15 whose
# square reaches n, or -1. Each return inside the loop becomes a select
# guarded by "not returned yet".
# tensorcode: input n=int32:-10:300
def first_square_at_least(n):
    for k in range(16):
        if k * k >= n:
            return k
    return -1
