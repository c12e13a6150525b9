#!/usr/bin/env python3
"""verify, run --cases and fit under `mpirun -np 2` against the same
commands in one process: stdout, stderr, exit status and written files must
be byte for byte the same (fit: within the bound of docs/scale-out.md, and
bit for bit with one rank), and a failing rank must end the job with the one
error a single process prints, exit 3 and no output file.

usage: mpi_cli_test.py TENSORCODE MPIEXEC verify|run|fit [CHECK ...]
(exit 77: skipped, mpirun cannot start tensorcode here)
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

TC, MPIEXEC, GROUP = sys.argv[1], sys.argv[2], sys.argv[3]
ONLY = set(sys.argv[4:])
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "scale")
TIMEOUT = 120  # a hanging rank fails the test instead of blocking ctest
# Containers often forbid the cross-process memory copy OpenMPI's shared
# memory transport uses for large messages (result lines): copy through the
# shared segment instead.
MPI_ENV = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none")


def mpi_prefix(ranks):
    cmd = [MPIEXEC, "--oversubscribe", "--quiet", "-np", str(ranks)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def tc(args, cwd, ranks=0):
    """Runs tensorcode in `cwd`, in one plain process (ranks 0) or under mpirun."""
    cmd = (mpi_prefix(ranks) if ranks else []) + [TC] + args
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT, env=MPI_ENV)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


failures = []


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print(f"FAIL {name}: {detail}", flush=True)


def same_as_single(name, args, cwd, ranks=2, expect_rc=None, outputs=()):
    """Runs `args` in one process and under mpirun in separate folders (the
    same relative paths) and compares everything."""
    if ONLY and name not in ONLY:
        return None
    results = []
    for r in (0, ranks):
        folder = os.path.join(cwd, f"{name}-{r}")
        os.makedirs(folder)
        for f in os.listdir(cwd):
            src = os.path.join(cwd, f)
            if os.path.isfile(src):
                os.symlink(src, os.path.join(folder, f))
        rc, out, err = tc(args, folder, r)
        files = {}
        for o in outputs:
            path = os.path.join(folder, o)
            files[o] = open(path, "rb").read() if os.path.exists(path) else None
        results.append((rc, out, err, files))
    single, multi = results
    check(name + ": exit status", single[0] == multi[0], f"{single[0]} vs {multi[0]}: {multi[2]}")
    check(name + ": stdout", single[1] == multi[1], f"\n{single[1][:400]}\nvs\n{multi[1][:400]}")
    check(name + ": stderr", single[2] == multi[2], f"\n{single[2]!r}\nvs\n{multi[2]!r}")
    check(name + ": files", single[3] == multi[3], "written files differ")
    if expect_rc is not None:
        check(name + ": expected status", single[0] == expect_rc, f"{single[0]}, stderr {single[2]!r}")
    print(f"ok {name}" if not any(f.startswith(name + ":") for f in failures) else f"-- {name}", flush=True)
    return single


def rank_local_failure(name, good, bad, cwd):
    """One rank runs `bad` (say, its machine lacks a file), the other
    `good` (mpirun's MPMD form), in both orders: the job must end, not hang,
    with exit 3 and exactly the error line a single process prints for
    `bad`, and print nothing on stdout."""
    if ONLY and name not in ONLY:
        return
    rc, out, err = tc(bad, cwd)
    check(name + ": single process fails", rc == 3 and err.count("\n") == 1, err)
    for first, second in ((good, bad), (bad, good)):
        cmd = mpi_prefix(1) + [TC] + first + [":", "-np", "1", TC] + second
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT, env=MPI_ENV)
        which = "rank 0" if first is bad else "rank 1"
        check(f"{name} ({which} fails): status", p.returncode == 3, p.returncode)
        check(f"{name} ({which} fails): stderr", p.stderr.decode() == err, f"{p.stderr.decode()!r} vs {err!r}")
        check(f"{name} ({which} fails): stdout", p.stdout.decode() == "", p.stdout.decode()[:300])
    print(f"ok {name}" if not any(f.startswith(name) for f in failures) else f"-- {name}", flush=True)


def mismatched_job(name, first, second, cwd, dirs=None, expect="was not started with the same job as rank 0"):
    """Rank 0 runs `first`, rank 1 `second` (mpirun's A : B form; with `dirs`,
    each in its own folder, as on two machines with different files). The
    job must refuse to start, not hang or report a pass: exit 3, the
    message on stderr, nothing on stdout."""
    if ONLY and name not in ONLY:
        return
    wdirs = dirs or (cwd, cwd)
    cmd = mpi_prefix(1) + ["-wdir", wdirs[0], TC] + first + [":", "-np", "1", "-wdir", wdirs[1], TC] + second
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT, env=MPI_ENV)
    except subprocess.TimeoutExpired:
        check(name + ": ends", False, "the job hung")
        return
    err = p.stderr.decode()
    check(name + ": status", p.returncode == 3, f"{p.returncode}: {err!r}")
    check(name + ": stderr", expect in err and err.count("\n") == 1, repr(err))
    check(name + ": stdout", p.stdout.decode() == "", p.stdout.decode()[:300])
    print(f"ok {name}" if not any(f.startswith(name) for f in failures) else f"-- {name}", flush=True)


def logged_shares(name, args, cwd, total, ranks=2):
    """Runs `args` under mpirun with TENSORCODE_SCALE_OUT_LOG and checks that
    every rank handled a share of the `total` cases (none more than two
    thirds of two ranks' work) and that the shares add up: a job where rank
    0 did everything, printing the same output, fails here."""
    if ONLY and name not in ONLY:
        return
    log = os.path.join(cwd, f"{name}-log")
    os.makedirs(log)
    cmd = mpi_prefix(ranks) + [TC] + args
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT,
                       env=dict(MPI_ENV, TENSORCODE_SCALE_OUT_LOG=log))
    check(f"{name}: status", p.returncode == 0, p.stderr.decode())
    records = {}
    for f in sorted(os.listdir(log)):
        for line in open(os.path.join(log, f)).read().splitlines():
            rec = json.loads(line)
            records[rec["rank"]] = rec
    counts = [records[r]["cases"] if r in records else None for r in range(ranks)]
    check(f"{name}: every rank reported", sorted(records) == list(range(ranks)), counts)
    check(f"{name}: the shares add up to {total}", None not in counts and sum(counts) == total, counts)
    check(f"{name}: every rank did a fair share", None not in counts and
          all(c >= total // (2 * ranks) for c in counts), counts)
    print(f"ok {name} {counts}" if not any(f.startswith(name) for f in failures) else f"-- {name}", flush=True)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    probe = subprocess.run(mpi_prefix(1) + [TC, "--version"], capture_output=True, timeout=TIMEOUT, env=MPI_ENV)
    if probe.returncode != 0:
        print("mpirun cannot start tensorcode here:", probe.stderr.decode()[:500])
        return 77
    with tempfile.TemporaryDirectory(prefix="tc-mpi-") as work:
        {"verify": verify_checks, "run": run_checks, "fit": fit_checks}[GROUP](work)
    if failures:
        print(f"{len(failures)} checks failed: {', '.join(failures)}")
        return 1
    print("all checks passed")
    return 0


def verify_checks(work):
    # Mismatches (a == 0, -3 <= b <= 10) straddle the boundary between the two
    # ranks' case ranges (201 x 201 cases, rank 1 starts at a = 0, b = 0):
    # the report must still list the first 10 in case order.
    write(os.path.join(work, "f.py"),
          "def f(a, b):\n    return a * b + (1 if a == 0 and -3 <= b <= 10 else 0)\n")
    write(os.path.join(work, "ref.py"), "def f(a, b):\n    return a * b\n")
    grid = ["--input", "a=int32:-100:100", "--input", "b=int32:-100:100"]
    s = same_as_single("verify_exhaustive_mismatches", ["verify", "f.py", *grid, "--reference", "ref.py"], work,
                       expect_rc=1)
    if s:
        report = json.loads(s[1])
        check("verify_exhaustive_mismatches: report", report["cases"] == 40401 and len(report["mismatches"]) == 10
              and report["mismatches"][3]["inputs"] == {"a": 0, "b": 0}, s[1][:300])
    same_as_single("verify_exhaustive_pass", ["verify", "ref.py", *grid], work, expect_rc=0)
    # Three ranks over a domain smaller than a block, one rank gets one case.
    same_as_single("verify_three_ranks", ["verify", "ref.py", "--input", "a=int32:0:1", "--input", "b=int32:0:0"],
                   work, ranks=3, expect_rc=0)
    # Sampled float verification: every rank draws the same samples.
    write(os.path.join(work, "h.py"), "def h(x, y):\n    return x * y + x / 3\n")
    write(os.path.join(work, "href.py"), "def h(x, y):\n    return x * (y + 1 / 3) if x > 0.9 else x * y + x / 3\n")
    same_as_single("verify_sampled", ["verify", "h.py", "--input", "x=float64:-1:1", "--input", "y=float64:-5:5",
                                      "--reference", "href.py", "--samples", "3000", "--seed", "7"], work, expect_rc=1)
    # Supplied cases for a domain too wide to enumerate.
    rng = random.Random(3)
    write(os.path.join(work, "wide.jsonl"),
          "".join(json.dumps({"a": rng.randint(-2**31, 2**31 - 1), "b": rng.randint(-9, 9)}) + "\n"
                  for _ in range(500)))
    write(os.path.join(work, "w.py"), "def w(a, b):\n    return a // 3 + b\n")
    same_as_single("verify_supplied", ["verify", "w.py", "--input", "a=int32", "--input", "b=int32:-9:9",
                                       "--cases", "wide.jsonl"], work, expect_rc=0)
    # A reference that hangs on a case in rank 1's range: one error naming
    # the case, exit 3, no hanging rank; and when both ranks' ranges hang,
    # the first in case order.
    write(os.path.join(work, "hang.py"),
          "def f(a, b):\n    while a == 50 and b == 7:\n        pass\n    return a * b\n")
    same_as_single("verify_reference_error", ["verify", "ref.py", *grid, "--reference", "hang.py",
                                              "--reference-timeout", "0.2"], work, expect_rc=3)
    write(os.path.join(work, "hang2.py"),
          "def f(a, b):\n    while (a, b) in ((-60, 1), (50, 7)):\n        pass\n    return a * b\n")
    # The hang in rank 0's range: ranks 1 and 2 are told and stop early.
    write(os.path.join(work, "hang0.py"),
          "def f(a, b):\n    while a == -90 and b == 7:\n        pass\n    return a * b\n")
    same_as_single("verify_reference_error_three_ranks", ["verify", "ref.py", *grid, "--reference", "hang0.py",
                                                          "--reference-timeout", "0.2"], work, ranks=3, expect_rc=3)
    rank_local_failure("verify_rank_local_failure", ["verify", "ref.py", *grid],
                       ["verify", "missing.py", *grid], work)
    # Each rank really does its share: the reference records the process
    # that asked for each case (its parent: that rank's tensorcode), so a job
    # where rank 0 did all the work, with the same output, fails here.
    if not ONLY or "verify_shares" in ONLY:
        calls = os.path.join(work, "calls")
        os.makedirs(calls)
        write(os.path.join(work, "share.py"),
              "import os\n\ndef f(a, b):\n"
              f"    with open(os.path.join({calls!r}, str(os.getppid())), 'a') as log:\n"
              "        log.write(f'{a} {b}\\n')\n"
              "    return a * b\n")
        rc, out, err = tc(["verify", "ref.py", "--input", "a=int32:0:99", "--input", "b=int32:0:1",
                           "--reference", "share.py"], work, 2)
        shares = sorted(len(open(os.path.join(calls, f)).read().splitlines()) for f in os.listdir(calls))
        check("verify_shares: passed", rc == 0 and json.loads(out or "{}").get("cases") == 200, f"{rc}: {err!r}")
        check("verify_shares: two ranks with 100 cases each", shares == [100, 100], shares)
        print("ok verify_shares" if not any(f.startswith("verify_shares") for f in failures) else "-- verify_shares",
              flush=True)
    logged_shares("verify_logged_shares", ["verify", "ref.py", "--input", "a=int32:0:99", "--input", "b=int32:0:1"],
                  work, 200)
    # Issue 23, defect 3: ranks given other domains, or another reference
    # file under the same name, must not report a pass over half the cases.
    mismatched_job("verify_other_domain", ["verify", "f.py", "--input", "a=int32:0:999", "--input", "b=int32:0:0",
                                           "--reference", "ref.py"],
                   ["verify", "f.py", "--input", "a=int32:0:9", "--input", "b=int32:0:0", "--reference", "ref.py"],
                   work)
    for side in ("one", "two"):
        os.makedirs(os.path.join(work, side))
        write(os.path.join(work, side, "f.py"), open(os.path.join(work, "f.py")).read())
    write(os.path.join(work, "one", "ref.py"), "def f(a, b):\n    return a * b\n")
    write(os.path.join(work, "two", "ref.py"), "def f(a, b):\n    return a * b + (1 if a == 0 else 0)\n")
    job = ["verify", "f.py", *grid, "--reference", "ref.py"]
    mismatched_job("verify_stale_reference", job, job, work,
                   dirs=(os.path.join(work, "one"), os.path.join(work, "two")))
    # Issue 23, defect 9: a rank that ends at once (help, a command that is
    # not split) must end the job instead of leaving rank 0 waiting.
    mismatched_job("verify_rank_ends_early", job, ["verify", "--help"], work)
    mismatched_job("verify_rank_runs_info", job, ["info", "ref.py", *grid], work)
    # The same job with another --threads is the same job.
    same = subprocess.run(mpi_prefix(1) + [TC] + job + ["--threads", "1", ":", "-np", "1", TC] + job
                          + ["--threads", "2"], cwd=work, capture_output=True, timeout=TIMEOUT, env=MPI_ENV)
    check("verify_threads_differ: status", same.returncode == 1, f"{same.returncode}: {same.stderr.decode()!r}")
    same_as_single("verify_reference_error_first", ["verify", "ref.py", *grid, "--reference", "hang2.py",
                                                    "--reference-timeout", "0.2"], work, expect_rc=3)



def run_checks(work):
    rng = random.Random(1)
    lines = []
    for i in range(3000):
        if i % 97 == 5:
            lines.append("")  # blank lines are skipped
        y = 0 if i % 50 == 7 else rng.uniform(-10, 10)  # division by zero: {"error": ...} lines
        lines.append(json.dumps({"x": rng.uniform(-10, 10), "y": y}))
    write(os.path.join(work, "cases.jsonl"), "\n".join(lines))  # no newline after the last line
    write(os.path.join(work, "g.py"), "def g(x, y):\n    return x / y + 0.5 * x\n")
    rc, _, err = tc(["compile", "g.py", "--input", "x=float64:-10:10", "--input", "y=float64:-10:10", "-o", "g.json"],
                    work)
    check("compile g", rc == 0, err)
    same_as_single("run_cases_stdout", ["run", "g.json", "--cases", "cases.jsonl"], work, expect_rc=0)
    same_as_single("run_cases_out", ["run", "g.json", "--cases", "cases.jsonl", "-o", "out.jsonl"], work,
                   expect_rc=0, outputs=["out.jsonl"])
    same_as_single("run_cases_three_ranks", ["run", "g.json", "--cases", "cases.jsonl"], work, ranks=3,
                   expect_rc=0)
    bad = list(lines)
    bad[2500] = '{"x": 1}'  # in rank 1's shard
    write(os.path.join(work, "bad.jsonl"), "\n".join(bad) + "\n")
    same_as_single("run_cases_bad_line", ["run", "g.json", "--cases", "bad.jsonl", "-o", "out.jsonl"], work,
                   expect_rc=3, outputs=["out.jsonl"])
    bad[700] = '{"x": 1, "y": 2, "z": 3}'  # also one in rank 0's: the first is reported
    write(os.path.join(work, "bad2.jsonl"), "\n".join(bad) + "\n")
    same_as_single("run_cases_first_bad_line", ["run", "g.json", "--cases", "bad2.jsonl"], work, expect_rc=3)
    rank_local_failure("run_rank_local_failure", ["run", "g.json", "--cases", "cases.jsonl"],
                       ["run", "missing.json", "--cases", "cases.jsonl"], work)
    same_as_single("run_cases_missing_file", ["run", "g.json", "--cases", "nothing.jsonl"], work, expect_rc=3)
    logged_shares("run_shares", ["run", "g.json", "--cases", "cases.jsonl"], work, 3000)
    logged_shares("run_shares_three_ranks", ["run", "g.json", "--cases", "cases.jsonl"], work, 3000, ranks=3)
    # A stale copy of the cases file on the second machine.
    for side in ("one", "two"):
        os.makedirs(os.path.join(work, side))
        os.symlink(os.path.join(work, "g.json"), os.path.join(work, side, "g.json"))
    lines = open(os.path.join(work, "cases.jsonl")).read().splitlines(True)
    write(os.path.join(work, "one", "cases.jsonl"), "".join(lines))
    write(os.path.join(work, "two", "cases.jsonl"), "".join(lines[:-1]))
    job = ["run", "g.json", "--cases", "cases.jsonl"]
    mismatched_job("run_stale_cases", job, job, work, dirs=(os.path.join(work, "one"), os.path.join(work, "two")))



def fit_checks(work):
    model = os.path.join(DATA, "fit_model.json")  # w*x + b*sigmoid(x) + c/x
    rng = random.Random(2)
    data = []
    for _ in range(800):
        x = rng.choice([-1, 1]) * rng.uniform(0.5, 3)
        data.append(json.dumps({"x": x, "t": 1.7 * x - 0.3 / (1 + math.exp(-x)) + 0.2 / x + rng.gauss(0, 0.1)}))
    write(os.path.join(work, "data.jsonl"), "\n".join(data) + "\n")
    for opt in ("sgd", "adam"):
        args = ["fit", model, "--data", "data.jsonl", "--target", "result=t", "--optimizer", opt, "--lr", "0.05",
                "--steps", "40", "-o", "trained.json"]
        # One rank: bit for bit the single process.
        same_as_single(f"fit_{opt}_one_rank", args, work, ranks=1, expect_rc=0, outputs=["trained.json"])
        if ONLY and f"fit_{opt}_two_ranks" not in ONLY:
            continue
        # Two ranks: equal up to the summation order (docs/scale-out.md).
        outs = []
        for r in (0, 2):
            folder = os.path.join(work, f"fit_{opt}-{r}")
            os.makedirs(folder)
            os.symlink(os.path.join(work, "data.jsonl"), os.path.join(folder, "data.jsonl"))
            rc, out, err = tc(args, folder, r)
            check(f"fit_{opt}_two_ranks: status", rc == 0, err)
            trained = json.load(open(os.path.join(folder, "trained.json")))
            outs.append((json.loads(out), trained))
        (s_sum, s_art), (m_sum, m_art) = outs
        for name, v in s_sum["parameters"].items():
            w = m_sum["parameters"][name]
            check(f"fit_{opt}_two_ranks: {name}", abs(v - w) <= 1e-9 * max(1.0, abs(v)), f"{v} vs {w}")
        for key in ("initial_loss", "final_loss"):
            check(f"fit_{opt}_two_ranks: {key}", abs(s_sum[key] - m_sum[key]) <= 1e-9 * max(1.0, abs(s_sum[key])),
                  f"{s_sum[key]} vs {m_sum[key]}")
        strip = lambda art: [{k: v for k, v in n.items() if k != "value" or n["op"] != "parameter"}
                             for n in art["nodes"]]
        check(f"fit_{opt}_two_ranks: artifact", strip(s_art) == strip(m_art) and
              {k: v for k, v in s_art.items() if k != "nodes"} == {k: v for k, v in m_art.items() if k != "nodes"})
        print(f"ok fit_{opt}_two_ranks", flush=True)
    fit = ["fit", model, "--target", "result=t", "--steps", "3", "-o", "trained.json"]
    logged_shares("fit_shares", fit + ["--data", "data.jsonl"], work, 800)
    zero = list(data)
    zero[650] = json.dumps({"x": 0, "t": 1})  # 1/x fails while training, in rank 1's shard
    write(os.path.join(work, "zero.jsonl"), "\n".join(zero) + "\n")
    same_as_single("fit_case_fails", fit + ["--data", "zero.jsonl"], work, expect_rc=3, outputs=["trained.json"])
    zero[120] = json.dumps({"x": 1})  # a bad line in rank 0's shard comes first
    write(os.path.join(work, "zero2.jsonl"), "\n".join(zero) + "\n")
    same_as_single("fit_bad_line", fit + ["--data", "zero2.jsonl"], work, expect_rc=3, outputs=["trained.json"])
    write(os.path.join(work, "one.jsonl"), data[0] + "\n")  # rank 1 has no cases at all
    same_as_single("fit_one_case", fit + ["--data", "one.jsonl"], work, ranks=1, expect_rc=0, outputs=["trained.json"])
    same_as_single("fit_one_case_two_ranks", fit + ["--data", "one.jsonl"], work, expect_rc=0)
    rank_local_failure("fit_rank_local_failure", fit + ["--data", "data.jsonl"],
                       ["fit", "missing.json"] + fit[2:] + ["--data", "data.jsonl"], work)
    mismatched_job("fit_other_lr", fit + ["--data", "data.jsonl", "--lr", "0.1"],
                   fit + ["--data", "data.jsonl", "--lr", "0.2"], work)
    write(os.path.join(work, "empty.jsonl"), "\n\n")
    same_as_single("fit_no_cases", fit + ["--data", "empty.jsonl"], work, expect_rc=3, outputs=["trained.json"])


if __name__ == "__main__":
    sys.exit(main())
