"""verify() with the original function, explicit references and cases, and
verified_replacement()."""
import struct

import pytest

from tensorcode.program import (Builder, VerificationError, compile, float64, int32, verified_replacement)


def choose(a):
    return 10 if a > 4 else 12


CHOOSE = "def choose(a):\n    return 10 if a > 4 else 12\n"


def test_verify_against_the_function_itself():
    p = compile(choose, {"a": int32(min=-128, max=127)})
    assert p.verify() == {"cases": 256, "exhaustive": True, "passed": True, "mismatches": []}


def test_source_text_needs_a_reference():
    p = compile(CHOOSE, {"a": int32(min=-128, max=127)})
    with pytest.raises(VerificationError, match="reference"):
        p.verify()
    assert p.verify(choose)["passed"]
    assert p.verify(CHOOSE)["passed"]
    assert p.verify(p)["passed"]


def test_mismatches_are_reported():
    p = compile(choose, {"a": int32(min=-128, max=127)})
    report = p.verify(lambda a: 10 if a >= 4 else 12)
    assert not report["passed"] and len(report["mismatches"]) == 1
    m = report["mismatches"][0]
    assert m["inputs"] == {"a": 4} and m["circuit"] == {"result": 12} and m["reference"] == {"result": 10}


def test_references_that_raise_and_tolerances():
    src = "def f(x):\n    return x * 3\n"
    p = compile(src, {"x": float64(min=-1, max=1)})
    report = p.verify(lambda x: x * 3 + 1e-12, cases=[{"x": 0.5}, {"x": -1}])
    assert report["cases"] == 2 and not report["exhaustive"] and not report["passed"]
    assert p.verify(lambda x: x * 3 + 1e-12, cases=[{"x": 0.5}], atol=1e-9)["passed"]
    bad = p.verify(lambda x: 1 / 0, cases=[{"x": 0.5}])
    assert "ZeroDivisionError" in bad["mismatches"][0]["reference"]["error"]
    sampled = p.verify(lambda x: x * 3)
    assert sampled["passed"] and not sampled["exhaustive"] and sampled["cases"] == 10000
    with pytest.raises(VerificationError):
        p.verify(lambda x: x, cases=[{"x": 5}])  # outside the domain
    with pytest.raises(TypeError):
        p.verify(42)


def test_verified_replacement():
    original = compile(choose, {"a": int32(min=-128, max=127)})
    b = Builder()
    a = b.input("a", int32(min=-128, max=127))
    good = b.build(b.select(a >= 5, 10, 12))
    assert verified_replacement(original, good) is good

    b = Builder()
    a = b.input("a", int32(min=-128, max=127))
    bad = b.build(b.select(a >= 4, 10, 12))
    with pytest.raises(VerificationError, match="disagree") as e:
        verified_replacement(original, bad)
    assert '"a":4' in str(e.value).replace(" ", "") and e.value.report["mismatches"]

    b = Builder()
    a = b.input("a", int32(min=-128, max=127))
    t = b.parameter("t", 4.0)
    unfrozen = b.build(b.select(a > t, 10, 12))
    with pytest.raises(VerificationError, match="param"):
        verified_replacement(original, unfrozen)
    assert verified_replacement(original, unfrozen.freeze()) is not None


@pytest.mark.parametrize("atol,rtol", [(float("inf"), 0), (0, float("inf")), (-1e-9, 0), (0, float("nan"))])
def test_verified_replacement_refuses_a_tolerance_that_accepts_anything(atol, rtol):
    # Issue 23, defect 4: atol=inf let a candidate returning 12345 everywhere through.
    original = compile(choose, {"a": int32(min=-128, max=127)})
    b = Builder()
    b.input("a", int32(min=-128, max=127))
    constant = b.build(b.constant(12345))
    with pytest.raises(ValueError, match="must be finite and not negative"):
        verified_replacement(original, constant, atol=atol, rtol=rtol)
    with pytest.raises(ValueError, match="must be finite and not negative"):
        original.verify(atol=atol, rtol=rtol)


def test_interrupting_the_reference_stops_verification():
    p = compile(choose, {"a": int32(min=-128, max=127)})
    calls = []

    def interrupted(a):
        calls.append(a)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return choose(a)

    with pytest.raises(KeyboardInterrupt):
        p.verify(interrupted)
    assert len(calls) == 3
    assert p.verify()["passed"], "the next verification is unaffected"


def uses_relu(x):
    return relu(x - 1) + sigmoid(x)  # noqa: F821 - the subset's built-ins


def test_relu_and_sigmoid_are_defined_for_the_reference():
    p = compile(uses_relu, {"x": float64(min=-3, max=3)})
    report = p.verify()
    assert report["passed"] and report["cases"] == 10000
    assert "relu" not in globals(), "the user's module is left alone"


def test_reference_source_that_fails_to_load():
    p = compile(CHOOSE, {"a": int32(min=-128, max=127)})
    with pytest.raises(VerificationError, match="does not compile"):
        p.verify("def choose(a):\n    return (\n")
    with pytest.raises(VerificationError, match="raised while loading: ZeroDivisionError"):
        p.verify("x = 1 / 0\ndef choose(a):\n    return a\n")
    with pytest.raises(VerificationError, match="2 functions"):
        p.verify("def f(a):\n    return a\ndef g(a):\n    return a\n")


def test_every_builtin_of_the_op_table_has_the_reference_definition():
    # The names come from ops.def's python column, the functions from the
    # driver core's CPython reference runs: a new builtin in the table
    # without a definition there fails here, naming it.
    from tensorcode.program import _core, _subset_builtins
    names = _core.python_builtins()
    assert "relu" in names and "sigmoid" in names
    helpers = _subset_builtins()
    for name in names:
        assert name in helpers, f"python_driver.py does not define the builtin {name}"
        p = compile(f"def f(x):\n    return {name}(x)\n", {"x": float64(min=-50, max=50)})
        for x in (-50.0, -3.25, -1e-9, 0.0, 0.5, 7.0, 50.0):
            got = p.run({"x": x})["result"]
            want = float(helpers[name](x))
            assert struct.pack("<d", got) == struct.pack("<d", want), (name, x, got, want)
