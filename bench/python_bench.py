"""Speed of the Python package against CPython and the C++ core, in one run.

usage (after the standard build, from the project root):
  /usr/bin/python3 bench/python_bench.py [--build build] [--quick]

Prints medians over rounds (times, and the per-round differences and ratios,
so load that changes between rounds cancels); each round times, back to
back, the package, CPython and the C++ core (build/bin/tc_python_baseline, built with
TC_BUILD_BENCH), so a busy machine slows all three alike:
  - program.run per call on `choose` and `long_loop` against the same
    function in CPython and against Evaluator::run in C++; the overhead is
    package - C++;
  - program.run_batch per case (numpy columns) against Evaluator::run_batch;
  - verify() of choose (256 exhaustive cases) in total.
Targets (issue 11): overhead <= 2 us per call; long_loop via program.run
faster than CPython's long_loop; batch <= 1.5x C++ per case.
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser()
parser.add_argument("--build", default=str(ROOT / "build"))
parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
args = parser.parse_args()
sys.path.insert(0, str(pathlib.Path(args.build, "python")))

import numpy as np  # noqa: E402

from tensorcode.program import compile, float64, int32  # noqa: E402

ROUNDS = 5 if args.quick else 21
BASELINE = pathlib.Path(args.build, "bin", "tc_python_baseline")


def choose(a):
    return 10 if a > 4 else 12


def long_loop(x):
    s = 0.0
    for i in range(1000):
        s = s + x * i
    return s


def per_call_ns(fn, arg, n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn(arg)
    return (time.perf_counter_ns() - t0) / n


def bench(name, program, fn, first_case, cases, iterations):
    key = next(iter(first_case))
    columns = {key: np.array([c[key] for c in cases], dtype=np.float64)}
    samples = {"run": [], "py": [], "batch": [], "c_run": [], "c_batch": []}
    with tempfile.TemporaryDirectory() as d:
        art = pathlib.Path(d, "p.json")
        art.write_text(program.to_json())
        cf = pathlib.Path(d, "cases.jsonl")
        cf.write_text("".join(json.dumps(c) + "\n" for c in [first_case] + cases))
        for _ in range(ROUNDS):
            samples["run"].append(per_call_ns(program.run, first_case, iterations))
            samples["py"].append(per_call_ns(fn, first_case[key], iterations))
            t0 = time.perf_counter_ns()
            program.run_batch(columns)
            samples["batch"].append((time.perf_counter_ns() - t0) / len(cases))
            if BASELINE.exists():
                out = subprocess.run([str(BASELINE), str(art), str(cf), str(iterations), "1"], capture_output=True,
                                     text=True)
                if out.returncode != 0:
                    sys.exit(f"{BASELINE.name} failed (rebuild it with the package?): {out.stderr.strip()}")
                c = json.loads(out.stdout)
                samples["c_run"].append(c["run_ns"])
                # The baseline's batch includes the first case once more; per case it is the same.
                samples["c_batch"].append(c["batch_ns_per_case"])
    m = {k: statistics.median(v) for k, v in samples.items() if v}
    # Load changes between rounds: compare within each round, then take the median.
    m["py_over_run"] = statistics.median(p / r for p, r in zip(samples["py"], samples["run"]))
    if samples["c_run"]:
        m["overhead"] = statistics.median(r - c for r, c in zip(samples["run"], samples["c_run"]))
        m["batch_ratio"] = statistics.median(b / c for b, c in zip(samples["batch"], samples["c_batch"]))
    print(f"{name}:")
    print(f"  program.run            {m['run'] / 1000:9.3f} us/call")
    print(f"  CPython {name:<14} {m['py'] / 1000:9.3f} us/call   (CPython / program.run = {m['py_over_run']:.2f}x)")
    if "c_run" in m:
        print(f"  C++ Evaluator::run     {m['c_run'] / 1000:9.3f} us/call   "
              f"(overhead {m['overhead'] / 1000:+.3f} us, target <= 2 us)")
        print(f"  run_batch (numpy)      {m['batch']:9.2f} ns/case   C++ run_batch {m['c_batch']:.2f} ns/case "
              f"(ratio {m['batch_ratio']:.2f}x, target <= 1.5x)")
    else:
        print(f"  run_batch (numpy)      {m['batch']:9.2f} ns/case   (no C++ baseline: configure with "
              "TC_BUILD_BENCH=ON and build tc_python_baseline)")
    return m


choose_p = compile(choose, {"a": int32(min=-128, max=127)})
bench("choose", choose_p, choose, {"a": 5}, [{"a": a} for a in range(-128, 128)] * 400,
      20000 if not args.quick else 2000)

loop_p = compile(long_loop, {"x": float64(min=-1000, max=1000)})
rng = np.random.default_rng(42)
m = bench("long_loop", loop_p, long_loop, {"x": 0.5}, [{"x": float(x)} for x in rng.uniform(-1000, 1000, 20000)],
          500 if not args.quick else 100)
print(f"  long_loop via program.run is {m['py_over_run']:.2f}x as fast as CPython's (target > 1)")

samples = []
for _ in range(ROUNDS):
    t0 = time.perf_counter_ns()
    r = choose_p.verify()
    samples.append(time.perf_counter_ns() - t0)
assert r["passed"] and r["cases"] == 256
print(f"verify() of choose, 256 cases: {statistics.median(samples) / 1e6:.3f} ms in total")
