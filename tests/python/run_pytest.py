"""Runs pytest for ctest, exiting 77 (ctest's SKIP_RETURN_CODE) when a module
the tests need is missing, so a machine without torch reports SKIPPED.

usage: run_pytest.py [--require MODULE]... -- PYTEST_ARGS...
"""
import importlib
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

    import pytest

    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *pytest_args]))


# Guarded: processes started with multiprocessing's spawn (the distributed
# test) import this main module again and must not rerun the suite.
if __name__ == "__main__":
    main()
