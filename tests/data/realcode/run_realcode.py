#!/usr/bin/python3
"""Compiles every function of the real-code corpus with the built CLI and
verifies the accepted ones against CPython.

Each file in functions/ holds one function copied from public code (its
docstring and doctests dropped), the imports and helpers of its module that
it uses, a provenance line

    # realcode: source=OWNER/REPO/PATH commit=SHA license=SPDX function=NAME

and its input domains as ordinary `# tensorcode: input` directives.

    run_realcode.py TENSORCODE [--jobs N] [--samples N] [--min-accept PCT]
                    [--verbose] [FILE ...]

Prints the acceptance rate, the rejection reasons by count and CPython's
agreement on the accepted functions. Exits 1 when a compile crashes or hangs,
a rejection is not located (FILE:LINE:COL with a line and a column), an
accepted function disagrees with CPython, or fewer than --min-accept percent
are accepted; 77 (skipped) when the corpus files are absent.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = re.compile(r"^# realcode: (.*)$", re.M)
LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>[1-9][0-9]*):(?P<col>[1-9][0-9]*): error: (?P<msg>.*)$")
TIMEOUT_S = 60
# A float `x ** n` (and pow(x, n), math.pow) is repeated multiplication in the
# circuit (docs/frontend.md) while CPython calls the C library's pow(), which
# rounds once: the two may differ in the last bits. A function that
# disagrees, uses `**` or pow() and agrees
# within this relative tolerance (about 4.5 units in the last place of a
# float64) is counted apart as such a difference, not as agreement.
POW_RTOL = "1e-15"


def header(path):
    with open(path, encoding="utf-8") as f:
        m = HEADER.search(f.read())
    if not m:
        raise SystemExit(f"{path}: no '# realcode:' provenance line")
    fields = dict(item.split("=", 1) for item in m.group(1).split())
    for key in ("source", "commit", "license", "function"):
        if key not in fields:
            raise SystemExit(f"{path}: the provenance line lacks {key}=")
    return fields


def reason(msg):
    """The rejection's kind: the message with names, numbers and quoted text
    blanked and what follows its first colon (the advice) dropped."""
    msg = msg.split(": ", 1)[0]
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\b\d+(\.\d+)?(e[+-]?\d+)?\b", "N", msg)
    return msg


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, text=True)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def check(cli, path, samples):
    fn = header(path)["function"]
    rc, _, err = run([cli, "compile", path, "--function", fn, "-o", os.devnull], TIMEOUT_S)
    out = {"path": path, "function": fn}
    if rc is None:
        out["status"] = "hang"
        return out
    if rc == 0:
        rc, vout, verr = run([cli, "verify", path, "--function", fn, "--samples", str(samples),
                              "--max-cases", str(samples), "--threads", "1"], 4 * TIMEOUT_S)
        out["status"] = {0: "agree", 1: "disagree"}.get(rc, "verify-error")
        if rc is None:
            out["status"] = "verify-hang"
        out["detail"] = (vout + verr).strip()[-600:]
        source = open(path, encoding="utf-8").read()
        if rc == 1 and ("**" in source or "pow(" in source):
            rc, _, _ = run([cli, "verify", path, "--function", fn, "--samples", str(samples),
                            "--max-cases", str(samples), "--threads", "1", "--rtol", POW_RTOL], 4 * TIMEOUT_S)
            if rc == 0:
                out["status"] = "pow-bits"
        return out
    if rc != 3:
        out["status"] = "crash"
        out["detail"] = f"exit {rc}: {err.strip()[-600:]}"
        return out
    errors = [line for line in err.splitlines() if ": error: " in line]
    m = LOCATED.match(errors[0]) if errors else None
    if not m:
        out["status"] = "unlocated"
        out["detail"] = err.strip()[-600:]
        return out
    out["status"] = "rejected"
    out["reason"] = reason(m.group("msg"))
    out["detail"] = errors[0]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("files", nargs="*")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--min-accept", type=float, default=0.0)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()

    folder = os.path.join(HERE, "functions")
    files = a.files or sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py")) \
        if (a.files or os.path.isdir(folder)) else []
    if not files:
        print(f"skipped: no corpus files in {folder}")
        return 77

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda p: check(a.cli, p, a.samples), files))

    n = len(results)
    by = Counter(r["status"] for r in results)
    accepted = by["agree"] + by["disagree"] + by["pow-bits"] + by["verify-error"] + by["verify-hang"]
    print(f"realcode: {n} functions, {accepted} accepted ({100.0 * accepted / n:.1f}%), "
          f"{by['rejected']} rejected, {by['crash']} crashed, {by['hang']} hung, {by['unlocated']} unlocated")
    print(f"CPython agreement of the accepted: {by['agree']} agree, {by['disagree']} disagree, "
          f"{by['pow-bits']} differ only in the last bits of a float ** or pow() (within rtol {POW_RTOL}), "
          f"{by['verify-error'] + by['verify-hang']} could not be verified")
    print("rejection reasons (first error), by count:")
    for why, count in Counter(r["reason"] for r in results if r["status"] == "rejected").most_common():
        print(f"  {count:4d}  {why}")
    bad = [r for r in results if r["status"] not in ("agree", "rejected", "pow-bits")]
    for r in bad:
        print(f"{r['status'].upper()}: {os.path.basename(r['path'])} ({r['function']}): {r.get('detail', '')}")
    for r in results:
        if r["status"] == "pow-bits":
            print(f"POW-BITS: {os.path.basename(r['path'])} ({r['function']})")
    if a.verbose:
        for r in results:
            if r["status"] in ("agree", "rejected"):
                print(f"{r['status']}: {os.path.basename(r['path'])}: {r.get('detail', '')[:200]}")
    rate = 100.0 * accepted / n
    if rate < a.min_accept:
        print(f"FAIL: {rate:.1f}% accepted, below the floor of {a.min_accept}%")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
