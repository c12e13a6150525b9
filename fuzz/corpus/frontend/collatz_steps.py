# tensorcode: input n=int32:1:50
def collatz_steps(n):
    steps = 0
    for _ in range(8):
        if n == 1:
            break
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps
