"""plan= and plan_status(): the evaluator's tier, chosen and seen from Python
(docs/evaluator.md, "The compiled plan"). The values never depend on it."""
import os
import shutil
import subprocess
import tempfile

import pytest

from tensorcode.program import compile, float64

SRC = """
def f(x):
    y = x * 3.0 - 1.0
    return y / (x - 2.0)
"""


def program():
    return compile(SRC, {"x": float64(min=-10, max=10)})


@pytest.fixture
def cache(monkeypatch):
    d = tempfile.mkdtemp(prefix="tc-py-plan-")
    monkeypatch.setenv("TC_CACHE_DIR", os.path.join(d, "cache"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def have_cc():
    try:
        return subprocess.run(["cc", "--version"], capture_output=True).returncode == 0
    except OSError:
        return False


def test_the_interpreter_when_chosen(cache):
    p = program()
    assert p.run({"x": 1.0}, plan="interpreter") == {"result": -2.0}
    st = p.plan_status()
    assert st["summary"] == "interpreting: the interpreter was chosen"
    assert not st["compiled"] and not st["compiling"]


def test_compiled_gives_the_same_values_and_says_so(cache):
    if not have_cc():
        pytest.skip("no C compiler")
    p = program()
    cols = {"x": [float(i) / 4 for i in range(-40, 40)]}
    want = p.run_batch(cols, plan="interpreter", errors="nan")
    got = p.run_batch(cols, plan="compiled", errors="nan")
    assert [repr(v) for v in want["result"]] == [repr(v) for v in got["result"]]
    st = p.plan_status()
    assert st["compiled"], st
    assert st["summary"] == "compiled (" + st["isa"] + ")"
    assert st["compiled_cases"] == 80
    assert st["handed_back"] == 1  # x = 2 divides by zero: the interpreter words it
    assert p.run({"x": 1.0}, plan="compiled") == {"result": -2.0}


def test_auto_is_the_default(cache):
    p = program()
    assert p.run({"x": 1.0}) == {"result": -2.0}
    assert p.plan_status()["summary"] == "interpreting: not worth compiling yet"


def test_a_bad_plan_is_refused():
    p = program()
    with pytest.raises(ValueError, match="plan must be auto, interpreter or compiled, got 'fast'"):
        p.run({"x": 1.0}, plan="fast")
    with pytest.raises(ValueError, match="plan must be auto, interpreter or compiled, got number"):
        p.run_batch([{"x": 1.0}], plan=1)


def test_a_refused_cache_is_named(cache):
    os.makedirs(os.path.join(cache, "cache"))
    os.chmod(os.path.join(cache, "cache"), 0o777)
    p = program()
    p.run({"x": 1.0}, plan="compiled")
    st = p.plan_status()
    if st["reason"].startswith("no C compiler"):
        pytest.skip("no C compiler")
    assert st["summary"].startswith("interpreting: cache refused: "), st
    assert "is writable by others (mode 0777)" in st["reason"]
