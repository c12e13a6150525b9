"""Speed of the batched PyTorch bridge (issue 22), in one run.

usage (after the standard build, from the project root):
  /usr/bin/python3 bench/torch_bench.py [--build build] [--quick] [--threads N]
                                        [--today DIR]

On the 517-node thermostat rule with a learned correction and on long_loop
(bench/data/torch_rules.py), for batches of 1, 64 and 4096 samples, the
median wall time per sample of forward + backward:
  - bridge: to_tensor_module()({name: tensor[B]}) then .sum().backward();
  - core: Program.gradients_batch (one batched forward + batched VJP in core,
    called once from Python: the floor the bridge is compared with);
  - torch: the same rule as vectorised PyTorch (float64, torch.where over
    0-d constants made once per run, no per-step ones_like/zeros_like),
    with torch.set_num_threads(N) (the bridge runs N threads too);
  - scalar loop: one 0-d call per sample, summed, one backward (what users
    wrote before the bridge took batches).
and one training epoch (10,000 thermostat samples, batch 64, Adam) through
the bridge against the per-scalar loop.

--today DIR measures the scalar loop and its epoch with the package in DIR
(a copy of build/python from before the batched bridge) in a subprocess,
interleaved round by round with this run's measurements, so both sides see
the same machine load. Without it the scalar loop runs on this build.

Targets (issue 22): bridge at batch 4096 <= 1.5x core per sample, >= 3x
faster than torch; batch 1 no slower than the scalar loop of today; the
epoch >= 5x faster than today's per-scalar loop. Issue 35 asks >= 3x
faster than torch for the thermostat at 4096 on AVX2 and on AVX-512.

Every side is timed the same way: one untimed call, then the same number
of timed calls (this thread's CPU time with one thread), once per round;
medians over the rounds, ratios as the median of per-round ratios.
--rules, --batches and --no-scalar narrow a run (the scalar loop and its
epoch take most of a full one).
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser()
parser.add_argument("--build", default=str(ROOT / "build"))
parser.add_argument("--python-dir", help="the package to import (default BUILD/python)")
parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--today", help="build/python of the code before the batched bridge")
parser.add_argument("--scalar-only", action="store_true", help="(internal) print the scalar-loop figures as JSON")
parser.add_argument("--rules", default="thermostat,long_loop", help="comma-separated: thermostat, long_loop")
parser.add_argument("--batches", default="1,64,4096", help="comma-separated batch sizes")
parser.add_argument("--no-scalar", action="store_true", help="skip the scalar loop and both epochs")
parser.add_argument("--rounds", type=int, default=None)
args = parser.parse_args()
sys.path.insert(0, args.python_dir or str(pathlib.Path(args.build, "python")))
sys.path.insert(0, str(ROOT / "bench" / "data"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import torch_rules  # noqa: E402

torch.set_num_threads(args.threads)
# One thread: CPU time of this thread (a busy machine slows nothing here);
# more: wall time, since the workers' time is not this thread's.
clock = time.thread_time if args.threads == 1 else time.perf_counter
ROUNDS = args.rounds or (3 if args.quick else 7)
BATCHES = tuple(int(b) for b in args.batches.split(","))
THERMOSTAT_CONSTANTS = torch_rules.thermostat_torch_constants(torch.float64)


def thermostat_torch(*columns):
    return torch_rules.thermostat_torch(*columns, constants=THERMOSTAT_CONSTANTS)


ALL_RULES = {
    "thermostat": (torch_rules.thermostat_program, thermostat_torch, torch_rules.thermostat_inputs),
    "long_loop": (torch_rules.long_loop_program, torch_rules.long_loop_torch, torch_rules.long_loop_inputs),
}
RULES = {name: ALL_RULES[name] for name in args.rules.split(",")}
EPOCH_SAMPLES, EPOCH_BATCH = 10_000, 64


def per_sample(fn, n, repeat):
    # One untimed call first: the first call at a batch size on a fresh
    # program allocates the record's buffers (hundreds of page faults),
    # which is not what an epoch's later steps pay; every side alike.
    fn()
    t0 = clock()
    for _ in range(repeat):
        fn()
    return (clock() - t0) / (repeat * n) * 1e9  # ns per sample


def repeats(n):
    # At least 8 calls per timing, so that batch 4096 is not one call.
    return max(8, 4096 // n) if n > 1 else 200


def scalar_loop(model, columns, n):
    names = list(columns)
    rows = [{k: torch.tensor(float(columns[k][i]), dtype=torch.float64, requires_grad=True) for k in names}
            for i in range(n)]

    def run():
        total = 0.0
        for row in rows:
            total = total + model(row)["result"]
        total.backward()
    return run


def targets_for(columns):
    prog = torch_rules.thermostat_program()
    trained = prog.to_tensor_module()
    with torch.no_grad():
        trained.parameter("correction").fill_(1.5)
    rows = [float(trained({k: torch.tensor(float(v[i]), dtype=torch.float64) for k, v in columns.items()})["result"])
            for i in range(EPOCH_SAMPLES)]
    return np.array(rows)


def epoch_scalar(columns, y):
    """One epoch of the per-scalar loop (fresh model, Adam)."""
    model = torch_rules.thermostat_program().to_tensor_module()
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    names = list(columns)
    t0 = clock()
    for start in range(0, EPOCH_SAMPLES, EPOCH_BATCH):
        opt.zero_grad()
        loss = 0.0
        stop = min(start + EPOCH_BATCH, EPOCH_SAMPLES)
        for i in range(start, stop):
            out = model({k: torch.tensor(float(columns[k][i]), dtype=torch.float64) for k in names})["result"]
            loss = loss + (out - float(y[i])) ** 2
        (loss / (stop - start)).backward()
        opt.step()
    return (clock() - t0) * 1e3, float(model.parameter("correction"))


def epoch_batched(columns, y):
    model = torch_rules.thermostat_program().to_tensor_module(threads=args.threads)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    cols = {k: torch.from_numpy(v) for k, v in columns.items()}
    yt = torch.from_numpy(y)
    t0 = clock()
    for start in range(0, EPOCH_SAMPLES, EPOCH_BATCH):
        opt.zero_grad()
        batch = {k: v[start:start + EPOCH_BATCH] for k, v in cols.items()}
        loss = ((model(batch)["result"] - yt[start:start + EPOCH_BATCH]) ** 2).mean()
        loss.backward()
        opt.step()
    return (clock() - t0) * 1e3, float(model.parameter("correction"))


def scalar_figures():
    """{rule: {batch: ns per sample}, "epoch_ms": ...}: one round."""
    rng = np.random.default_rng(7)
    out = {}
    for name, (make, _, inputs) in RULES.items():
        model = make().to_tensor_module()
        columns = inputs(rng, 4096)
        out[name] = {str(n): per_sample(scalar_loop(model, columns, n), n, max(1, 64 // n) if n < 4096 else 1)
                     for n in BATCHES}
    columns = torch_rules.thermostat_inputs(np.random.default_rng(11), EPOCH_SAMPLES)
    y = np.load(EPOCH_TARGETS) if EPOCH_TARGETS else targets_for(columns)
    out["epoch_ms"], out["epoch_correction"] = epoch_scalar(columns, y)
    return out


EPOCH_TARGETS = None
if args.scalar_only:
    import os
    EPOCH_TARGETS = os.environ.get("TC_BENCH_TARGETS")
    print(json.dumps(scalar_figures()))
    sys.exit(0)

from tensorcode.program import Program  # noqa: E402,F401

rng = np.random.default_rng(7)
samples = {}  # (rule, batch, kind) -> [ns per sample]
epoch = {"batched": [], "scalar": []}
epoch_columns = torch_rules.thermostat_inputs(np.random.default_rng(11), EPOCH_SAMPLES)
epoch_y = targets_for(epoch_columns) if not args.no_scalar else np.zeros(EPOCH_SAMPLES)
import os  # noqa: E402
import tempfile  # noqa: E402

tmp = tempfile.NamedTemporaryFile(suffix=".npy", delete=False)
np.save(tmp.name, epoch_y)
tmp.close()

for name, (make, torch_fn, inputs) in RULES.items():
    prog = make()
    columns = inputs(rng, 4096)
    model = prog.to_tensor_module(threads=args.threads)
    # The bridge and the vectorised torch rule compute the same values.
    tcols = {k: torch.from_numpy(v) for k, v in columns.items()}
    extra = [model.parameter(p) for p in model.parameter_names]
    want = torch_fn(*[tcols[k] for k in prog.inputs], *extra) if name == "thermostat" else torch_fn(tcols["x"])
    got = model(tcols)["result"]
    assert torch.allclose(got, want, rtol=1e-9, atol=1e-9), f"{name}: torch rule and program disagree"

for r in range(ROUNDS):
    for name, (make, torch_fn, inputs) in RULES.items():
        prog = make()
        model = prog.to_tensor_module(threads=args.threads)
        columns = inputs(rng, 4096)
        order = list(columns)
        for n in BATCHES:
            cols = {k: np.ascontiguousarray(v[:n]) for k, v in columns.items()}
            tcols = {k: torch.from_numpy(v) for k, v in cols.items()}
            k = repeats(n)

            # Inputs made once, outside the timing, for every side alike
            # (gradients accumulate across repeats, as in the scalar loop).
            ins = {k2: v.clone().requires_grad_(True) for k2, v in tcols.items()} if n > 1 else \
                {k2: v[0].clone().requires_grad_(True) for k2, v in tcols.items()}

            def bridge():
                model(ins)["result"].sum().backward()

            def core():
                prog.gradients_batch(cols, threads=args.threads)

            params = {p: torch.zeros((), dtype=torch.float64, requires_grad=True) for p in model.parameter_names}

            vins = [tcols[k2].clone().requires_grad_(True) for k2 in order]

            def vectorised():
                out = torch_fn(*vins, *params.values()) if params else torch_fn(*vins)
                out.sum().backward()

            samples.setdefault((name, n, "bridge"), []).append(per_sample(bridge, n, k))
            samples.setdefault((name, n, "core"), []).append(per_sample(core, n, k))
            samples.setdefault((name, n, "torch"), []).append(per_sample(vectorised, n, k))
            if args.no_scalar:
                samples.setdefault((name, n, "scalar"), []).append(float("nan"))
            elif not args.today:
                samples.setdefault((name, n, "scalar"), []).append(
                    per_sample(scalar_loop(model, cols, n), n, max(1, 64 // n) if n < 4096 else 1))
    if args.no_scalar:
        continue
    epoch["batched"].append(epoch_batched(epoch_columns, epoch_y)[0])
    if args.today:
        env = dict(os.environ, TC_BENCH_TARGETS=tmp.name)
        res = subprocess.run([sys.executable, __file__, "--scalar-only", "--python-dir", args.today,
                              "--threads", str(args.threads)], capture_output=True, text=True, env=env)
        if res.returncode != 0:
            sys.exit(f"the --today run failed: {res.stderr.strip()}")
        today = json.loads(res.stdout)
        for name in RULES:
            for n in BATCHES:
                samples.setdefault((name, n, "scalar"), []).append(today[name][str(n)])
        epoch["scalar"].append(today["epoch_ms"])
    else:
        epoch["scalar"].append(epoch_scalar(epoch_columns, epoch_y)[0])
os.unlink(tmp.name)


def med(key):
    return statistics.median(samples[key])


def ratio(a, b):
    return statistics.median(x / y for x, y in zip(samples[a], samples[b]))


# Which tier the bridge's gradients ran: a compiled plan is a shared object
# mapped from the plan cache (the block kernels otherwise; pin a tier with
# TC_PLAN_COMPILE_AFTER and TC_CACHE_DIR, and its ISA with TC_PLAN_ISA).
plans = sorted({line.split()[-1] for line in open("/proc/self/maps") if "/plan-" in line and line.endswith(".so\n")})
print(f"torch {torch.__version__}, threads {args.threads}, {ROUNDS} rounds, medians; scalar loop from "
      f"{'--today ' + args.today if args.today else 'this build'}; compiled plans loaded: {len(plans)}"
      f"{' (TC_PLAN_ISA=' + os.environ['TC_PLAN_ISA'] + ')' if plans and os.environ.get('TC_PLAN_ISA') else ''}")
for name in RULES:
    nodes = RULES[name][0]()._c.info()["nodes"]
    print(f"{name} ({nodes} nodes), fwd+bwd per sample:")
    print(f"  {'batch':>6} {'bridge':>11} {'core':>11} {'torch':>11} {'scalar':>11}   "
          f"{'bridge/core':>11} {'torch/bridge':>12} {'scalar/bridge':>13}")
    for n in BATCHES:
        b, c, t, s = ((name, n, k) for k in ("bridge", "core", "torch", "scalar"))
        print(f"  {n:>6} {med(b) / 1e3:>8.3f} us {med(c) / 1e3:>8.3f} us {med(t) / 1e3:>8.3f} us "
              f"{med(s) / 1e3:>8.3f} us   {ratio(b, c):>10.2f}x {ratio(t, b):>11.2f}x {ratio(s, b):>12.2f}x")
if args.no_scalar:
    sys.exit(0)
e_ratio = statistics.median(s / b for s, b in zip(epoch["scalar"], epoch["batched"]))
print(f"epoch of {EPOCH_SAMPLES} thermostat samples, batch {EPOCH_BATCH}, Adam: bridge "
      f"{statistics.median(epoch['batched']):.1f} ms, scalar loop {statistics.median(epoch['scalar']):.1f} ms "
      f"({e_ratio:.1f}x faster; target >= 5x)")
print("targets: batch 4096 bridge/core <= 1.5x, torch/bridge >= 3x; batch 1 scalar/bridge >= 1; epoch >= 5x")
