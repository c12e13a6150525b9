"""Runs pytest for ctest, exiting 77 (ctest's SKIP_RETURN_CODE) when a module
the tests need is missing, so a machine without torch reports SKIPPED, and
when any test skipped inside an otherwise passing run.

usage: run_pytest.py [--require MODULE]... [--require-command PROGRAM]... -- PYTEST_ARGS...
"""
import importlib
import shutil
import sys


def main():
    args = sys.argv[1:]
    split = args.index("--") if "--" in args else len(args)
    options, pytest_args = args[:split], args[split + 1:]
    for i, a in enumerate(options):
        if a == "--require":
            name = options[i + 1]
            try:
                importlib.import_module(name)
            except ImportError as e:
                print(f"SKIPPED: {name} is not importable ({e})")
                sys.exit(77)
        elif a == "--require-command":
            name = options[i + 1]
            if shutil.which(name) is None:
                print(f"SKIPPED: the program {name} is not installed (not found on PATH)")
                sys.exit(77)

    import pytest

    class CountSkips:
        """A test skipped inside the run must not make the ctest entry a pass."""

        skipped = []

        def pytest_runtest_logreport(self, report):
            if report.skipped:
                self.skipped.append(report.nodeid)

        def pytest_collectreport(self, report):
            if report.skipped:  # a module skipped whole (pytest.importorskip, allow_module_level)
                self.skipped.append(report.nodeid)

    counter = CountSkips()
    rc = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *pytest_args], plugins=[counter])
    if rc == 0 and counter.skipped:
        print(f"SKIPPED: {len(counter.skipped)} tests skipped inside the run ({', '.join(counter.skipped[:5])})")
        sys.exit(77)
    sys.exit(rc)


# Guarded: processes started with multiprocessing's spawn (the distributed
# test) import this main module again and must not rerun the suite.
if __name__ == "__main__":
    main()
