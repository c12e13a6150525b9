"""Speed of the Python package against CPython and the C++ core, in one run.

usage (after the standard build, from the project root):
  /usr/bin/python3 bench/python_bench.py [--build build] [--quick]

Prints, with medians of repeated timings:
  - program.run per call on `choose` and `long_loop`, against the same
    function in CPython and against Evaluator::run in C++ (tc_python_baseline,
    built with TC_BUILD_BENCH); the overhead is package - C++;
  - program.run_batch per case (numpy columns) against Evaluator::run_batch;
  - verify() of choose (256 exhaustive cases) in total.
Targets (issue 11): overhead <= 2 us per call; long_loop via program.run
faster than CPython's long_loop; batch <= 1.5x C++ per case.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser()
parser.add_argument("--build", default=str(ROOT / "build"))
parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
args = parser.parse_args()
sys.path.insert(0, str(pathlib.Path(args.build, "python")))

import numpy as np  # noqa: E402

from tensorcode.program import compile, float64, int32  # noqa: E402

REPEATS = 5 if args.quick else 15


def choose(a):
    return 10 if a > 4 else 12


def long_loop(x):
    s = 0.0
    for i in range(1000):
        s = s + x * i
    return s


def per_call_ns(fn, arg, n):
    samples = []
    for _ in range(REPEATS):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn(arg)
        samples.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(samples)


def per_case_batch_ns(program, columns, count):
    samples = []
    for _ in range(REPEATS):
        t0 = time.perf_counter_ns()
        program.run_batch(columns)
        samples.append((time.perf_counter_ns() - t0) / count)
    return statistics.median(samples)


def cxx_baseline(program, cases, iterations):
    exe = pathlib.Path(args.build, "bin", "tc_python_baseline")
    if not exe.exists():
        return None
    with tempfile.TemporaryDirectory() as d:
        art = pathlib.Path(d, "p.json")
        art.write_text(program.to_json())
        cf = pathlib.Path(d, "cases.jsonl")
        cf.write_text("".join(json.dumps(c) + "\n" for c in cases))
        out = subprocess.run([str(exe), str(art), str(cf), str(iterations)], capture_output=True, text=True,
                             check=True)
    return json.loads(out.stdout)


def report(name, program, fn, first_case, cases, iterations):
    key = next(iter(first_case))
    value = first_case[key]
    run = per_call_ns(program.run, first_case, iterations)
    py = per_call_ns(fn, value, iterations)
    columns = {key: np.array([c[key] for c in cases], dtype=np.float64)}
    batch = per_case_batch_ns(program, columns, len(cases))
    cxx = cxx_baseline(program, [first_case] + cases, iterations)
    print(f"{name}:")
    print(f"  program.run            {run / 1000:9.3f} us/call")
    print(f"  CPython {name:<14} {py / 1000:9.3f} us/call   (program.run / CPython = {run / py:.2f}x)")
    if cxx:
        print(f"  C++ Evaluator::run     {cxx['run_ns'] / 1000:9.3f} us/call   "
              f"(overhead {(run - cxx['run_ns']) / 1000:+.3f} us, target <= 2 us)")
        print(f"  run_batch (numpy)      {batch:9.2f} ns/case   C++ run_batch {cxx['batch_ns_per_case']:.2f} ns/case "
              f"(ratio {batch / cxx['batch_ns_per_case']:.2f}x, target <= 1.5x)")
    else:
        print(f"  run_batch (numpy)      {batch:9.2f} ns/case   (C++ baseline not built: "
              "configure with TC_BUILD_BENCH=ON)")
    return run, py


choose_p = compile(choose, {"a": int32(min=-128, max=127)})
choose_cases = [{"a": a} for a in range(-128, 128)] * 400
report("choose", choose_p, choose, {"a": 5}, choose_cases, 20000 if not args.quick else 2000)

loop_p = compile(long_loop, {"x": float64(min=-1000, max=1000)})
rng = np.random.default_rng(42)
loop_cases = [{"x": float(x)} for x in rng.uniform(-1000, 1000, 20000)]
run, py = report("long_loop", loop_p, long_loop, {"x": 0.5}, loop_cases, 2000 if not args.quick else 200)
print(f"  long_loop via program.run is {py / run:.1f}x faster than CPython (target > 1)")

samples = []
for _ in range(REPEATS):
    t0 = time.perf_counter_ns()
    r = choose_p.verify()
    samples.append(time.perf_counter_ns() - t0)
assert r["passed"] and r["cases"] == 256
print(f"verify() of choose, 256 cases: {statistics.median(samples) / 1e6:.3f} ms in total")
