"""The rules of bench/torch_bench.py, each three ways: the tensorcode
program, the same rule as vectorised PyTorch over [B] columns (float64,
torch.where), and sample inputs.

thermostat: a hysteresis thermostat simulated over 42 time steps
(comparisons and selects per step), with a learned `correction` added to
the outside temperature it sees and subtracted from its result; 517 nodes. long_loop: bench/python_bench.py's
1000-iteration sum.
"""
STEPS = 42

THERMOSTAT_SOURCE = f'''
def thermostat(temp, setpoint, outside):
    heat = 0.0
    energy = 0.0
    for i in range({STEPS}):
        if temp < setpoint - 0.5:
            heat = 1.0
        elif temp > setpoint + 0.5:
            heat = 0.0
        temp = temp + 0.1 * (outside - temp) + 0.8 * heat
        energy = energy + heat
    return temp + 0.01 * energy
'''

LONG_LOOP_SOURCE = '''
def long_loop(x):
    s = 0.0
    for i in range(1000):
        s = s + x * i
    return s
'''


def thermostat_program():
    from tensorcode.program import Builder, compile, float64
    rule = compile(THERMOSTAT_SOURCE, {"temp": float64(min=-20, max=40), "setpoint": float64(min=10, max=30),
                                       "outside": float64(min=-40, max=60)})
    b = Builder()
    temp, setpoint, outside = b.input("temp"), b.input("setpoint"), b.input("outside")
    correction = b.parameter("correction", 0.0)
    region = b.include(rule, {"temp": temp, "setpoint": setpoint, "outside": outside + correction}, prefix="rule")
    return b.build(region["result"] - correction)


def thermostat_torch_constants(dtype=None):
    """The 0-d constants thermostat_torch selects between, made once per
    run (not a ones_like/zeros_like per step)."""
    import torch
    dtype = dtype or torch.float64
    return torch.ones((), dtype=dtype), torch.zeros((), dtype=dtype)


def thermostat_torch(temp, setpoint, outside, correction, constants=None):
    """As a torch user would vectorise it: the band edges computed once, and
    heat and energy start as the 0-d zero (they broadcast to [B] at the
    first step)."""
    import torch
    one, zero = constants if constants is not None else thermostat_torch_constants(temp.dtype)
    outside = outside + correction
    low, high = setpoint - 0.5, setpoint + 0.5
    heat = zero
    energy = zero
    for _ in range(STEPS):
        heat = torch.where(temp < low, one, torch.where(temp > high, zero, heat))
        temp = temp + 0.1 * (outside - temp) + 0.8 * heat
        energy = energy + heat
    return temp + 0.01 * energy - correction


def thermostat_inputs(rng, n):
    """numpy float64 columns."""
    return {"temp": rng.uniform(5, 30, n), "setpoint": rng.uniform(18, 23, n), "outside": rng.uniform(-10, 30, n)}


def long_loop_program():
    from tensorcode.program import compile, float64
    return compile(LONG_LOOP_SOURCE, {"x": float64(min=-1000, max=1000)})


def long_loop_torch(x):
    s = x * 0.0
    for i in range(1000):
        s = s + x * i
    return s


def long_loop_inputs(rng, n):
    return {"x": rng.uniform(-1000, 1000, n)}
