"""Makes build/python importable when pytest runs outside ctest, and gives
the tests the CLI's path (TC_CLI) for the cross-checks."""
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
if not any(pathlib.Path(p, "tensorcode").is_dir() for p in sys.path if p):
    sys.path.insert(0, str(ROOT / "build" / "python"))

CLI = os.environ.get("TC_CLI", str(ROOT / "build" / "bin" / "tensorcode"))
