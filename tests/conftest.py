"""The description's validation command, `.venv/bin/python -m pytest
tests/test_program.py tests/training -q`, run from the checkout: those two
paths are entry points that collect the package's suites, which live in
tests/python (pytest's own collection of those files, with their conftest.py,
fixtures and marks, as `pytest tests/python` does). tests/test_program.py
collects every suite but the Trainer's; tests/training/ collects the
Trainer's, on one process and on several. Together they are tests/python
once over (ctest python.venv_install runs the command verbatim)."""
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
SUITES = HERE / "python"
TRAINING = ("test_torch_training.py", "test_torch_distributed.py")


def _suites(entry):
    files = sorted(p for p in SUITES.glob("test_*.py"))
    if entry == HERE / "test_program.py":
        return [p for p in files if p.name not in TRAINING]
    if entry == HERE / "training" / "test_training.py":
        return [SUITES / name for name in TRAINING]
    return None


class _Entry(pytest.File):
    """An entry file: its children are the suite modules it names."""

    def collect(self):
        for path in _suites(self.path):
            # tests/python/conftest.py first, as collecting that folder would
            # load it (the suites import its CLI, and it finds build/python).
            self.session.gethookproxy(path)
            yield pytest.Module.from_parent(self, path=path)


def pytest_pycollect_makemodule(module_path, parent):
    # The entry files are never imported: tests/test_program.py would take
    # the module name of tests/python/test_program.py.
    if _suites(pathlib.Path(module_path).resolve()) is not None:
        return _Entry.from_parent(parent, path=module_path)
    return None
