# A piecewise shipping-cost rule: a per-kilogram rate that drops in tiers,
# a surcharge for express orders and a cap. The loop over the tiers is
# expanded at compile time.
# tensorcode: input weight=int32:0:200
# tensorcode: input express=bool
def shipping_cost(weight, express):
    tiers = [(10, 5), (40, 3), (100, 2), (1000, 1)]
    cost = 0
    done = 0
    for limit, rate in tiers:
        if weight > done:
            cost += (min(weight, limit) - done) * rate
        done = limit
    if express:
        cost = cost + 20 if weight <= 50 else cost * 2
    return min(cost, 400)
