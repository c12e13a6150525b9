# inputs: income=int32:-50:200 rate=int32:0:40
def raise_guard(income, rate):
    # a rule that refuses bad input: the cases it refuses fail, with CPython's
    # exception, and the tuple it returns otherwise is computed as usual
    if income < 0:
        raise ValueError("income must not be negative")
    if rate > 30:
        raise OverflowError("rate above " '30%')
    tax = income * rate // 100
    return tax, income - tax
