"""Messages a Python user sees: advice in compile()'s own spelling (never the
CLI's flags), module-level names and closures explained and located."""
import subprocess

import pytest

from conftest import CLI
from tensorcode.program import CompileError, compile, float64, int32

RATE = 0.25


def uses_a_module_constant(x):
    return x * RATE


def test_a_module_level_name_says_it_is_not_captured_and_how_to_pass_it():
    with pytest.raises(CompileError) as e:
        compile(uses_a_module_constant, {"x": float64()})
    text = str(e.value)
    assert "name 'RATE' is not defined" in text
    assert "module-level names are not captured" in text
    assert 'inputs={"RATE": float64(...)}' in text
    assert "constant" in text
    assert (e.value.line, e.value.column) == (14, 16)  # `RATE` in the return line above


def test_the_closure_error_is_located():
    offset = 3

    def shifted(a):
        b = a * 2
        return b + offset

    with pytest.raises(CompileError, match="closure") as e:
        compile(shifted, {"a": int32(min=0, max=3)})
    first = shifted.__code__.co_firstlineno
    assert e.value.line == first + 2  # the line using `offset`
    assert e.value.column == 20       # `offset` in that line of this file
    assert str(e.value).startswith(f"{__file__}:{e.value.line}:20: error: ")
    assert "offset" in e.value.message


def test_default_values_are_located():
    def defaults(a, b=2):
        return a + b

    with pytest.raises(CompileError, match="default argument values") as e:
        compile(defaults, {"a": int32(), "b": int32()})
    assert (e.value.line, e.value.column) == (defaults.__code__.co_firstlineno, 23)  # the `2`
    assert "inputs=" in e.value.message


LOOP = """
def loop(a):
    s = a
    for i in range(50):
        s = s + i
    return s
"""
WIDE = """
def wide(a, b):
    return a * b
"""


def messages():
    """(what, message) for each advice the frontend gives about options."""
    out = []

    def failing(*args, **kwargs):
        with pytest.raises(CompileError) as e:
            compile(*args, **kwargs)
        out.append(str(e.value))

    failing(LOOP, {"a": int32(min=0, max=3)}, max_iterations=10)
    failing(LOOP, {"a": int32(min=0, max=3)}, max_nodes=20)
    failing(WIDE, {"a": int32(min=0, max=3)})
    failing(WIDE, {"a": int32(), "b": int32()}, dtype="float32")
    failing(WIDE, {"a": int32(min=0, max=3), "b": int32(min=0, max=3), "c": int32()})
    failing("def f(a):\n    return a\ndef g(a):\n    return a\n", {"a": int32()})
    failing("def f(a=1):\n    return a\n", {"a": int32()})
    failing("def f(*a):\n    return 1\n", {})
    failing("def f(a, b):\n    return a * b * b * b\n",
            {"a": int32(min=-2**20, max=2**20), "b": int32(min=-2**20, max=2**20)})
    return out


def test_hints_are_spelled_as_compile_arguments():
    texts = messages()
    joined = "\n".join(texts)
    assert "max_iterations=N" in texts[0]
    assert "max_nodes=N" in texts[1]
    assert 'inputs={"b": DOMAIN}' in texts[2] and "int32(min=-128, max=127)" in texts[2]
    assert "dtype=" in texts[3]
    assert 'inputs["c"] names no parameter' in texts[4]
    assert "function=NAME" in texts[5]
    assert 'inputs={"a": DOMAIN}' in texts[6]
    assert "a domain in inputs=" in texts[7]
    assert 'inputs={"x": int32(min=-1000, max=1000)}' in texts[8]
    assert "--" not in joined.replace("--- ", ""), joined


def test_the_cli_keeps_its_flags(tmp_path):
    source = tmp_path / "loop.py"
    source.write_text(LOOP)
    r = subprocess.run([CLI, "compile", str(source), "--input", "a=int32:0:3", "--max-iterations", "10"],
                       capture_output=True, text=True)
    assert r.returncode != 0
    assert "--max-iterations N" in r.stderr
