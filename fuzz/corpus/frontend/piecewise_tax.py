# tensorcode: input income=int32:0:5000
def piecewise_tax(income):
    brackets = [(0, 1000, 0), (1000, 3000, 10), (3000, 100000, 25)]
    tax = 0
    for lo, hi, rate in brackets:
        if income > lo:
            part = min(income, hi) - lo
            tax = tax + part * rate
    return tax // 100
