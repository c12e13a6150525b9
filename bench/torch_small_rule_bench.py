"""The bridge's own cost on a small rule (issue 35): one training epoch of a
pricing rule with five learned coefficients through the PyTorch bridge,
against the same model written as vectorised PyTorch, in one run.

usage (after the standard build, from the project root):
  /usr/bin/python3 bench/torch_small_rule_bench.py [--build build] [--quick]
                                                    [--profile]

The rule (`pricing`): four inputs, quantity discounts and a loyalty rebate
as if/elif branches, a three-step shipping loop, and a correction
`scale * rule + bias + c_qty * qty + c_dist * distance + c_loyalty *
loyalty` with five trainable coefficients added through Builder.include
(the node count is printed). One epoch: 20,000 samples in batches of 256
and 4096, Adam (lr 0.01), mean squared error against targets made by the
same model with other coefficients; the time covers zero_grad, forward,
loss, backward and the optimizer step. float64 and float32 (Builder and
compile with dtype="float32", float32 columns).

Both sides run torch.set_num_threads(1), are timed with this thread's CPU
time over the same number of steps, and get their columns sliced from
tensors made once. The torch side keeps its coefficients in one [5]
parameter (what a torch user would write; `torch (5 params)` is the same
model with five 0-d parameters), uses torch.where over constants made
once (no per-step ones_like/zeros_like), and computes in the epoch's dtype.
Each round times every configuration once, interleaved; medians over the
rounds, and the ratio torch time / bridge time (above 1: the bridge is
faster) as the median of the per-round ratios.

--profile runs the bridge's float64 batch-256 epoch under cProfile and
prints where the Python time goes.
"""
import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser()
parser.add_argument("--build", default=str(ROOT / "build"))
parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
parser.add_argument("--rounds", type=int, default=None)
parser.add_argument("--profile", action="store_true", help="cProfile the bridge's float64 epoch at batch 256")
args = parser.parse_args()
sys.path.insert(0, str(pathlib.Path(args.build, "python")))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from tensorcode.program import Builder, compile, float64  # noqa: E402

torch.set_num_threads(1)
clock = time.thread_time
ROUNDS = args.rounds or (3 if args.quick else 7)
SAMPLES = 20_000
BATCHES = (256, 4096)
DTYPES = {"float64": torch.float64, "float32": torch.float32}
LR = 0.01

PRICING_SOURCE = '''
def pricing(base, qty, loyalty, distance):
    price = base * qty
    if qty > 50:
        price = price * 0.8
    elif qty > 20:
        price = price * 0.9
    elif qty > 10:
        price = price * 0.95
    if loyalty > 3:
        price = price - 0.05 * price
    fee = 0.0
    for i in range(3):
        fee = fee + 0.5 * distance / (i + 1)
    if price > 500:
        fee = fee * 0.5
    return price + fee
'''
INPUTS = ("base", "qty", "loyalty", "distance")
COEFFICIENTS = {"scale": 1.0, "bias": 0.0, "c_qty": 0.0, "c_dist": 0.0, "c_loyalty": 0.0}
TRUE = {"scale": 1.1, "bias": 2.0, "c_qty": -0.05, "c_dist": 0.02, "c_loyalty": 0.3}


def pricing_program(dtype):
    domains = {"base": float64(min=1, max=20), "qty": float64(min=1, max=80), "loyalty": float64(min=0, max=6),
               "distance": float64(min=0, max=100)}
    rule = compile(PRICING_SOURCE, domains, dtype=dtype)
    b = Builder(dtype=dtype)
    xs = {name: b.input(name) for name in INPUTS}
    c = {name: b.parameter(name, value) for name, value in COEFFICIENTS.items()}
    r = b.include(rule, xs, prefix="rule")["result"]
    return b.build(c["scale"] * r + c["bias"] + c["c_qty"] * xs["qty"] + c["c_dist"] * xs["distance"]
                   + c["c_loyalty"] * xs["loyalty"])


def pricing_torch(base, qty, loyalty, distance, coef, k):
    """The same model over [B] columns; `coef` = (scale, bias, c_qty,
    c_dist, c_loyalty), `k` the constants made once in the epoch's dtype."""
    price = base * qty
    price = price * torch.where(qty > 50, k["0.8"], torch.where(qty > 20, k["0.9"],
                                                                  torch.where(qty > 10, k["0.95"], k["1"])))
    price = torch.where(loyalty > 3, price - 0.05 * price, price)
    fee = 0.5 * distance / 1
    fee = fee + 0.5 * distance / 2
    fee = fee + 0.5 * distance / 3
    fee = torch.where(price > 500, fee * 0.5, fee)
    r = price + fee
    return coef[0] * r + coef[1] + coef[2] * qty + coef[3] * distance + coef[4] * loyalty


def columns(dtype):
    rng = np.random.default_rng(35)
    cols = {"base": rng.uniform(1, 20, SAMPLES), "qty": np.floor(rng.uniform(1, 80, SAMPLES)),
            "loyalty": np.floor(rng.uniform(0, 6, SAMPLES)), "distance": rng.uniform(0, 100, SAMPLES)}
    t = {k: torch.from_numpy(v).to(dtype).contiguous() for k, v in cols.items()}
    k = {s: torch.tensor(float(s), dtype=dtype) for s in ("0.8", "0.9", "0.95", "1")}
    true = torch.tensor([TRUE[n] for n in COEFFICIENTS], dtype=dtype)
    y = pricing_torch(*[t[n] for n in INPUTS], true, k).detach()
    return t, y, k


def steps(batch):
    return [(s, min(s + batch, SAMPLES)) for s in range(0, SAMPLES, batch)]


def epoch_bridge(model, opt, t, y, batch):
    names = INPUTS
    spans = steps(batch)
    t0 = clock()
    for a, b in spans:
        opt.zero_grad()
        out = model({n: t[n][a:b] for n in names})["result"]
        loss = ((out - y[a:b]) ** 2).mean()
        loss.backward()
        opt.step()
    return clock() - t0


def epoch_torch(coef, opt, t, y, k, batch):
    spans = steps(batch)
    t0 = clock()
    for a, b in spans:
        opt.zero_grad()
        # coef: one [5] parameter, or a list of five 0-d ones (indexed alike).
        out = pricing_torch(t["base"][a:b], t["qty"][a:b], t["loyalty"][a:b], t["distance"][a:b], coef, k)
        loss = ((out - y[a:b]) ** 2).mean()
        loss.backward()
        opt.step()
    return clock() - t0


def fresh_bridge(prog):
    model = prog.to_tensor_module()
    return model, torch.optim.Adam(model.parameters(), lr=LR)


def fresh_torch(dtype, separate):
    if separate:
        coef = [torch.nn.Parameter(torch.tensor(v, dtype=dtype)) for v in COEFFICIENTS.values()]
        return coef, torch.optim.Adam(coef, lr=LR)
    coef = torch.nn.Parameter(torch.tensor(list(COEFFICIENTS.values()), dtype=dtype))
    return coef, torch.optim.Adam([coef], lr=LR)


def coefficient_values(model):
    return [float(model.parameter(n)) for n in COEFFICIENTS]


data = {name: columns(dt) for name, dt in DTYPES.items()}
programs = {name: pricing_program(name) for name in DTYPES}
nodes = programs["float64"]._c.info()["nodes"]

# Both sides train the same model: after one epoch the coefficients agree.
for name, dt in DTYPES.items():
    t, y, k = data[name]
    model, opt = fresh_bridge(programs[name])
    epoch_bridge(model, opt, t, y, 256)
    coef, topt = fresh_torch(dt, False)
    epoch_torch(coef, topt, t, y, k, 256)
    got, want = coefficient_values(model), coef.detach().tolist()
    tol = 1e-9 if name == "float64" else 2e-3
    assert np.allclose(got, want, rtol=tol, atol=tol), f"{name}: bridge {got} torch {want}"

if args.profile:
    import cProfile
    import pstats
    t, y, k = data["float64"]
    model, opt = fresh_bridge(programs["float64"])
    epoch_bridge(model, opt, t, y, 256)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(5):
        epoch_bridge(model, opt, t, y, 256)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    sys.exit(0)

times = {}  # (dtype, batch, side) -> [seconds]
for r in range(ROUNDS):
    for name, dt in DTYPES.items():
        t, y, k = data[name]
        for batch in BATCHES:
            # A fresh model and optimizer per epoch, each warmed by one
            # untimed epoch (buffers allocated, compiled plan loaded).
            model, opt = fresh_bridge(programs[name])
            epoch_bridge(model, opt, t, y, batch)
            times.setdefault((name, batch, "bridge"), []).append(epoch_bridge(model, opt, t, y, batch))
            for separate, side in ((False, "torch"), (True, "torch5")):
                coef, topt = fresh_torch(dt, separate)
                epoch_torch(coef, topt, t, y, k, batch)
                times.setdefault((name, batch, side), []).append(epoch_torch(coef, topt, t, y, k, batch))


def med(key):
    return statistics.median(times[key])


def ratio(a, b):
    return statistics.median(x / y for x, y in zip(times[a], times[b]))


print(f"pricing rule, {nodes} nodes, {len(COEFFICIENTS)} coefficients; epoch of {SAMPLES} samples, Adam; "
      f"torch {torch.__version__}, 1 thread, {ROUNDS} rounds, medians of thread CPU time")
print(f"  {'dtype':>7} {'batch':>5} {'bridge':>10} {'torch':>10} {'torch (5 params)':>17}   "
      f"{'torch/bridge':>12} {'torch5/bridge':>13}")
for name in DTYPES:
    for batch in BATCHES:
        b, t, t5 = ((name, batch, s) for s in ("bridge", "torch", "torch5"))
        print(f"  {name:>7} {batch:>5} {med(b) * 1e3:>7.2f} ms {med(t) * 1e3:>7.2f} ms {med(t5) * 1e3:>14.2f} ms   "
              f"{ratio(t, b):>11.2f}x {ratio(t5, b):>12.2f}x")
print("target (issue 35): torch/bridge >= 1.5x at batch 256, float64 and float32")
