"""Host bindings: with a VJP (checked against finite differences), forward
only, and raising ones, which must become exceptions."""
import math

import pytest

from tensorcode.program import Builder, EvaluationError, Runtime, float64, int32


def softplus_program():
    b = Builder()
    x = b.input("x")
    y = b.input("y")
    w = b.parameter("w", 0.5)
    return b.build(b.call("softplus_mul", x, y) * w)


def softplus_mul(x, y):
    return math.log1p(math.exp(x)) * y


def softplus_mul_vjp(args, result):
    x, y = args
    s = 1 / (1 + math.exp(-x))
    return [s * y, math.log1p(math.exp(x))]


BINDINGS = {"softplus_mul": (softplus_mul, softplus_mul_vjp)}


def test_vjp_against_finite_differences():
    p = softplus_program().bind(BINDINGS)
    for x, y in ((0.3, 2.0), (-1.5, 0.25), (2.0, -3.0)):
        g = p.gradients({"x": x, "y": y})
        h = 1e-6
        for name in ("x", "y"):
            up = {"x": x, "y": y}
            down = dict(up)
            up[name] += h
            down[name] -= h
            fd = (p.run(up)["result"] - p.run(down)["result"]) / (2 * h)
            assert g[name] == pytest.approx(fd, rel=1e-6, abs=1e-8)
        assert g["w"] == pytest.approx(softplus_mul(x, y))


def test_bindings_keyword_everywhere():
    p = softplus_program()
    assert p.run({"x": 0, "y": 2}, bindings=BINDINGS)["result"] == pytest.approx(math.log(2.0))
    assert "x" in p.gradients({"x": 0, "y": 2}, bindings=BINDINGS)
    assert p.step({"x": 0, "y": 2}, bindings=BINDINGS)[0]["result"] == pytest.approx(math.log(2.0))
    rt = Runtime(p, bindings=BINDINGS)
    assert rt.dispatch({"x": 0, "y": 2})["result"] == pytest.approx(math.log(2.0))
    assert "softplus" not in p.bind(BINDINGS).to_json().replace('"softplus_mul"', "")  # only the name


def test_forward_only_binding_cannot_be_differentiated():
    p = softplus_program().bind({"softplus_mul": (softplus_mul, None)})
    assert p.run({"x": 0, "y": 1})["result"] == pytest.approx(0.5 * math.log(2.0))
    with pytest.raises(EvaluationError, match="forward-only"):
        p.gradients({"x": 0, "y": 1})


def test_raising_binding_is_an_exception_with_its_cause():
    def boom(x, y):
        raise ValueError("no such value")

    p = softplus_program().bind({"softplus_mul": (boom, None)})
    with pytest.raises(EvaluationError, match="no such value") as e:
        p.run({"x": 0, "y": 1})
    assert isinstance(e.value.__cause__, ValueError)
    assert e.value.node is not None
    with pytest.raises(EvaluationError, match="no such value"):
        p.run_batch([{"x": 0, "y": 1}])
    with pytest.raises(EvaluationError):
        p.gradients({"x": 0, "y": 1})


def test_misbehaving_bindings():
    cases = [
        ({"softplus_mul": (lambda x, y: "text", None)}, "not a number"),
        ({"softplus_mul": (lambda x, y: math.inf, None)}, "inf"),
        ({"softplus_mul": (lambda x: x, None)}, "TypeError"),
    ]
    for bindings, message in cases:
        with pytest.raises(EvaluationError, match=message):
            softplus_program().run({"x": 0, "y": 1}, bindings=bindings)
    wrong_count = {"softplus_mul": (softplus_mul, lambda args, r: [1.0])}
    with pytest.raises(EvaluationError, match="1 derivatives for 2"):
        softplus_program().gradients({"x": 0, "y": 1}, bindings=wrong_count)
    raising_vjp = {"softplus_mul": (softplus_mul, lambda args, r: 1 / 0)}
    with pytest.raises(EvaluationError, match="ZeroDivisionError") as e:
        softplus_program().gradients({"x": 0, "y": 1}, bindings=raising_vjp)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    with pytest.raises(TypeError):
        softplus_program().bind({"softplus_mul": 42})
    with pytest.raises(TypeError):
        softplus_program().bind({"softplus_mul": (softplus_mul, 3)})
    with pytest.raises(TypeError):
        softplus_program().bind([1, 2])


def test_keyboard_interrupt_in_a_binding_propagates():
    def interrupt(x, y):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        softplus_program().run({"x": 0, "y": 1}, bindings={"softplus_mul": (interrupt, None)})
    with pytest.raises(KeyboardInterrupt):
        softplus_program().run_batch([{"x": 0, "y": 1}], bindings={"softplus_mul": (interrupt, None)},
                                     errors="nan")


def test_stateful_runtime_with_binding_failure_commits_nothing():
    b = Builder()
    e = b.input("e", int32(min=0, max=9))
    s = b.state("s", 0, float64())
    b.update(s, b.call("f", s, e))
    p = b.build(s)

    def f(s, e):
        if e == 9:
            raise RuntimeError("nine")
        return s + e

    rt = Runtime(p, bindings={"f": (f, None)})
    rt.dispatch({"e": 2})
    with pytest.raises(EvaluationError, match="nine"):
        rt.dispatch({"e": 9})
    assert rt.state == {"s": 2.0} and rt.steps == 1


def test_changing_the_bindings_dict_takes_effect():
    p = softplus_program()
    bindings = {"softplus_mul": (lambda x, y: 1.0, None)}
    assert p.run({"x": 0, "y": 1}, bindings=bindings) == {"result": 0.5}
    bindings["softplus_mul"] = (lambda x, y: 4.0, None)
    assert p.run({"x": 0, "y": 1}, bindings=bindings) == {"result": 2.0}


def test_verify_with_a_python_binding_over_many_cases():
    # Many blocks of cases: the circuit must stay on the thread holding the GIL.
    b = Builder()
    a = b.input("a", int32(min=0, max=20000))
    p = b.build(b.call("half", a)).bind({"half": (lambda v: v / 2, None)})
    report = p.verify(lambda a: a / 2)
    assert report["passed"] and report["cases"] == 20001


def _sqrt_program():
    b = Builder()
    x = b.input("x", float64(-10, 10))
    return b.build(b.select(x >= 0, b.call("sqrt", x), 0))


def test_run_batch_calls_bindings_exactly_as_run_does():
    # Issue 23, defect 11: run_batch called the binding for every case,
    # untaken branches included, and swallowed their errors.
    calls = []

    def sqrt(v):
        calls.append(v)
        if v < 0:
            raise ValueError("math domain error")
        return math.sqrt(v)

    p = _sqrt_program().bind({"sqrt": (sqrt, None)})
    cases = [{"x": v} for v in (-2.0, -1.0, 0.0, 4.0)]
    expected = [p.run(c) for c in cases]
    per_case_calls, calls[:] = list(calls), []
    assert p.run_batch(cases) == expected
    assert calls == per_case_calls == [0.0, 4.0]


def test_run_batch_raise_stops_at_the_first_failure_and_calls_it_once():
    calls = []

    def fails_first(v):
        calls.append(v)
        if len(calls) == 1:
            raise ValueError("first call fails")
        return v

    p = _sqrt_program().bind({"sqrt": (fails_first, None)})
    with pytest.raises(EvaluationError, match="first call fails") as e:
        p.run_batch([{"x": 1.0}, {"x": 2.0}, {"x": 3.0}])
    assert e.value.case == 0 and calls == [1.0]  # not retried, nothing after it evaluated
    calls[:] = []
    out = p.run_batch([{"x": 1.0}, {"x": 2.0}], errors="nan")
    assert math.isnan(out[0]["result"]) and out[1]["result"] == 2.0 and calls == [1.0, 2.0]


def test_ctrl_c_stops_run_batch_with_bindings_between_cases():
    # Issue 23, defect 10: a SIGINT at 0.5 s let all 3,000 cases run (3.4 s).
    import signal
    import threading
    import time

    calls = []

    def slow(v):
        calls.append(v)
        time.sleep(0.001)
        return v

    p = _sqrt_program().bind({"sqrt": (slow, None)})
    timer = threading.Timer(0.2, lambda: signal.pthread_kill(threading.main_thread().ident, signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        p.run_batch([{"x": 1.0}] * 3000)
    elapsed = time.monotonic() - start
    timer.join()
    assert len(calls) < 3000 and elapsed < 2.0, (len(calls), elapsed)
