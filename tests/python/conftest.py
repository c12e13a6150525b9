"""Makes build/python importable when pytest runs outside ctest, and gives
the tests the CLI's path (TC_CLI) for the cross-checks."""
import importlib.util
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
# find_spec also sees an editable install (pip install -e .), whose finder
# serves tensorcode from the checkout without a sys.path entry.
if importlib.util.find_spec("tensorcode") is None:
    sys.path.insert(0, str(ROOT / "build" / "python"))

CLI = os.environ.get("TC_CLI", str(ROOT / "build" / "bin" / "tensorcode"))
