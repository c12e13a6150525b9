"""The math module's functions with ops of their own (sqrt, exp, expm1, log,
log2, log10, log1p, sin, cos, tan, atan, tanh): the Builder's methods, compiled math.* calls, and
verify() against CPython with its domain errors (issue 40)."""
import math

import pytest

from tensorcode.program import Builder, EvaluationError, compile, float64

NAMES = ("sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "atan", "tanh")


def test_builder_has_one_method_per_math_function():
    b = Builder()
    x = b.input("x", float64(min=0.5, max=8))
    p = b.build({name: getattr(b, name)(x) for name in NAMES})
    for v in (0.5, 1.0, 2.0, 3.7, 8.0):
        assert p.run({"x": v}) == {name: getattr(math, name)(v) for name in NAMES}


def test_builder_sqrt_of_a_negative_fails_as_a_nan():
    b = Builder()
    x = b.input("x", float64(min=-4, max=4))
    p = b.build(b.sqrt(x))
    assert p.run({"x": 2.25}) == {"result": 1.5}
    with pytest.raises(EvaluationError, match="nan"):
        p.run({"x": -1.0})


PHYSICS = """import math


def physics(x: float, y: float) -> float:
    r = math.sqrt(x)
    t = math.sin(x) * math.cos(y) + math.tan(y / 3) - math.atan(x * y) + math.tanh(x)
    return r + math.exp(-y) * math.log(y, 2) + math.log1p(x) - math.log10(y) + math.expm1(y / 4) + t
"""


def test_compiled_math_calls_agree_with_cpython():
    p = compile(PHYSICS, {"x": float64(min=-10, max=10), "y": float64(min=-1, max=4)})
    report = p.verify(PHYSICS)
    assert report["passed"], report["mismatches"][:3]
    # Inside, at and outside the domains: the same bits, or the same exception.
    cases = [{"x": 4.0, "y": 2.0}, {"x": -0.0, "y": 1.0}, {"x": -1.0, "y": 2.0}, {"x": 3.0, "y": 0.0},
             {"x": 3.0, "y": -0.5}, {"x": 1e-300, "y": 1e-300}]
    report = p.verify(PHYSICS, cases=cases)
    assert report["passed"], report["mismatches"]
    with pytest.raises(EvaluationError, match="ValueError: math domain error"):
        p.run({"x": -1.0, "y": 2.0})


def test_a_different_exception_is_a_mismatch():
    p = compile("import math\ndef f(x):\n    return math.sqrt(x)\n", {"x": float64(min=-4, max=4)})

    def wrong(x):
        if x < 0:
            raise TypeError("not a domain error")
        return math.sqrt(x)

    report = p.verify(wrong, cases=[{"x": -1.0}])
    assert not report["passed"]


def test_batched_values_and_gradients_are_the_scalar_ones():
    # The batch evaluator maps each function lane by lane with the scalar
    # kernel, and the batched tape multiplies by the row's slope: the same
    # bits as one case at a time, on both plans.
    import numpy as np
    src = ("import math\ndef f(x):\n    return math.sqrt(x) + math.exp(-x) * math.log(x) + math.sin(x) * math.tanh(x)"
           " + math.atan(x) - math.log1p(x) + math.cos(x) + math.tan(x / 4) + math.log2(x) - math.log10(x)"
           " + math.expm1(x / 8)\n")
    p = compile(src, {"x": float64(min=-2, max=6)})
    xs = np.linspace(-2, 6, 257)
    for plan in ("interpreter", "compiled"):
        batch = p.run_batch({"x": xs}, errors="nan", plan=plan)["result"]
        for x, v in zip(xs, batch):
            if x <= 0:
                assert math.isnan(v)  # ValueError: math domain error
            else:
                assert v == p.run({"x": float(x)})["result"]
    g = p.gradients_batch({"x": xs[xs > 0]})
    for x, d in zip(xs[xs > 0], g["inputs"]["x"]):
        assert d == p.gradients({"x": float(x)})["x"]
        want = (0.5 / math.sqrt(x) - math.exp(-x) * math.log(x) + math.exp(-x) / x + math.cos(x) * math.tanh(x)
                + math.sin(x) * (1 - math.tanh(x) ** 2) + 1 / (1 + x * x) - 1 / (1 + x) - math.sin(x)
                + (1 + math.tan(x / 4) ** 2) / 4 + 1 / (x * math.log(2)) - 1 / (x * math.log(10))
                + math.exp(x / 8) / 8)
        assert abs(d - want) <= 1e-12 * max(1.0, abs(want))
