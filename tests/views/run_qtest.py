"""Runs one Qt Test executable for ctest: exit 77 (SKIP_RETURN_CODE, so the
entry reports SKIPPED) only when it passed and a function inside was skipped
(Qt Test prints "SKIP   : "); a failure stays a failure.

A SKIP_REGULAR_EXPRESSION on the executable's output could not do this:
ctest checks it before the exit status, so one QSKIP in an executable whose
other functions FAIL made the entry SKIPPED.

usage: run_qtest.py EXECUTABLE [ARGS...]
"""
import subprocess
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    run = subprocess.run(argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = run.stdout.decode("utf-8", "replace")
    sys.stdout.write(output)
    sys.stdout.flush()
    if run.returncode != 0:
        return run.returncode if 0 < run.returncode < 256 else 1
    if any(line.startswith("SKIP   : ") for line in output.splitlines()):
        print("SKIPPED: a test function was skipped (the rest passed)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
