"""Entry point of the description's validation command (`.venv/bin/python
-m pytest tests/test_program.py tests/training -q`): tests/conftest.py
collects the package's suites from tests/python in its place (all but the
Trainer's, which tests/training/ collects). This file is never imported."""
