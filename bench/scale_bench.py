#!/usr/bin/env python3
"""Scale-out throughput: cases per second of `tensorcode verify` (exhaustive,
CPython reference) and `tensorcode run --cases` (JSON Lines in and out) in
one process and under `mpirun -np 1` and `-np 2`.

Rounds interleave the configurations so that load from other work slows all
of them alike; the figures are medians of wall time, start-up included, and
mpirun's own start-up is measured separately (`tensorcode --version`), so
per-rank throughput can be read without it (docs/scale-out.md).

usage: bench/scale_bench.py build/bin/tensorcode [--rounds N] [--verify-cases N] [--run-cases N]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def mpirun(ranks):
    cmd = ["mpirun", "--oversubscribe", "--quiet", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def timed(cmd, cwd):
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr.decode()}")
    return elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tensorcode")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--verify-cases", type=int, default=1 << 20)
    ap.add_argument("--run-cases", type=int, default=1 << 19)
    a = ap.parse_args()
    tc = os.path.abspath(a.tensorcode)
    with tempfile.TemporaryDirectory(prefix="tc-scale-bench-") as work:
        with open(os.path.join(work, "f.py"), "w") as f:
            f.write("def f(a, b):\n    s = 0\n    for i in range(4):\n        s = s + (a * i if b > i else b)\n"
                    "    return s\n")
        side = int(a.verify_cases ** 0.5)
        verify = ["verify", "f.py", "--input", f"a=int32:0:{side - 1}", "--input", f"b=int32:0:{side - 1}",
                  "--max-cases", str(side * side)]
        subprocess.run([tc, "compile", "f.py", "--input", "a=int32:-1000:1000", "--input", "b=int32:-1000:1000",
                        "-o", "f.json"], cwd=work, check=True)
        rng = random.Random(1)
        with open(os.path.join(work, "cases.jsonl"), "w") as f:
            for _ in range(a.run_cases):
                f.write(json.dumps({"a": rng.randint(-1000, 1000), "b": rng.randint(-1000, 1000)}) + "\n")
        run = ["run", "f.json", "--cases", "cases.jsonl", "-o", "out.jsonl"]
        configs = [("1 process", []), ("mpirun -np 1", mpirun(1)), ("mpirun -np 2", mpirun(2))]
        times = {}
        for _ in range(a.rounds):
            for label, prefix in configs:
                times.setdefault(("startup", label), []).append(timed(prefix + [tc, "--version"], work))
                times.setdefault(("verify", label), []).append(timed(prefix + [tc] + verify, work))
                times.setdefault(("run --cases", label), []).append(timed(prefix + [tc] + run, work))
        print(f"load average (1 min): {os.getloadavg()[0]:.1f}; cores: {os.cpu_count()}; "
              f"rounds: {a.rounds}; verify: {side * side} cases; run --cases: {a.run_cases} cases")
        for what, n in (("verify", side * side), ("run --cases", a.run_cases)):
            base = statistics.median(times[(what, "1 process")])
            for label, _ in configs:
                t = statistics.median(times[(what, label)])
                start = statistics.median(times[("startup", label)])
                work_only = max(t - start, 1e-9)
                print(f"{what:12s} {label:13s} median {t:7.3f} s  {n / t:12,.0f} cases/s  "
                      f"(without start-up {start:5.3f} s: {n / work_only:12,.0f} cases/s)  speed-up {base / t:4.2f}")


if __name__ == "__main__":
    main()
