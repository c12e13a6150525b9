# tensorcode: input a=int32:-100:100 b=int32:-100:100
# dtype: float32
def float32_dtype(a, b):
    # small integers are exact in binary32, so CPython agrees
    return a * b + 3 * a - b
