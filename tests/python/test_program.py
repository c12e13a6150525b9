"""Program: run, run_batch, gradients, step, passes, artifact round trip and
errors that must be exceptions, never a crash."""
import json
import math

import pytest

from tensorcode.program import (ArtifactError, Builder, EvaluationError, Program, analyze, compile, float64,
                                int32)

DIV = """
def f(a, b):
    q = a / b
    return q + 1
"""


def div_program():
    return compile(DIV, {"a": float64(min=-10, max=10), "b": int32(min=-3, max=3)})


def test_run_wrong_types_missing_unknown_and_out_of_domain():
    p = div_program()
    assert p.run({"a": 1.0, "b": 2}) == {"result": 1.5}
    with pytest.raises(TypeError, match="input 'a' must be a number, not str"):
        p.run({"a": "one", "b": 2})
    with pytest.raises(TypeError):
        p.run([("a", 1.0)])
    with pytest.raises(TypeError):
        p.run({1: 1.0, "b": 2})
    with pytest.raises(EvaluationError, match="'b'"):
        p.run({"a": 1.0})
    with pytest.raises(EvaluationError, match="'c'"):
        p.run({"a": 1.0, "b": 2, "c": 3})
    with pytest.raises(EvaluationError, match="above the maximum"):
        p.run({"a": 1.0, "b": 7})
    with pytest.raises(EvaluationError, match="not an integer"):
        p.run({"a": 1.0, "b": 1.5})
    with pytest.raises(EvaluationError):
        p.run({"a": math.nan, "b": 1})
    with pytest.raises(OverflowError):
        p.run({"a": 10 ** 400, "b": 1})


def test_evaluation_error_names_node_and_location():
    p = div_program()
    with pytest.raises(EvaluationError) as e:
        p.run({"a": 1.0, "b": 0})
    err = e.value
    assert isinstance(err, ArithmeticError)
    assert "division by zero" in str(err)
    assert err.node is not None and err.line == 3 and err.column is not None
    assert p.graph()["nodes"][err.node]["op"] == "div"


def test_params_override_stored_values():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 2.0)
    p = b.build(w * x)
    assert p.run({"x": 3}) == {"result": 6.0}
    assert p.run({"x": 3}, params={"w": 5}) == {"result": 15.0}
    assert p.parameters == {"w": 2.0}


def test_run_batch_lists_and_columns():
    import numpy as np
    p = div_program()
    cases = [{"a": float(i), "b": 2} for i in range(5)]
    assert p.run_batch(cases) == [p.run(c) for c in cases]
    cols = p.run_batch({"a": np.arange(5.0), "b": np.full(5, 2.0)})
    assert list(cols["result"]) == [p.run(c)["result"] for c in cases]
    with pytest.raises(EvaluationError) as e:
        p.run_batch([{"a": 1.0, "b": 1}, {"a": 1.0, "b": 0}])
    assert e.value.case == 1 and "division by zero" in str(e.value)
    out = p.run_batch({"a": [1.0, 1.0], "b": [1, 0]}, errors="nan")
    assert out["result"][0] == 2.0 and math.isnan(out["result"][1])
    with pytest.raises(EvaluationError, match="'b'"):
        p.run_batch([{"a": 1.0}])
    with pytest.raises(EvaluationError, match="'b'"):
        p.run_batch({"a": [1.0]})
    with pytest.raises(ValueError, match="values"):
        p.run_batch({"a": [1.0, 2.0], "b": [1]})
    with pytest.raises(TypeError):
        p.run_batch(42)


def test_gradients_in_three_semantics():
    for semantics, expected_dx in (("exact", 0.0), ("hybrid", 0.25 * 3.0), ("relaxed", None)):
        b = Builder(semantics=semantics)
        x = b.input("x")
        w = b.parameter("w", 3.0)
        p = b.build(b.select(x > 0, w, 0.0))
        g = p.gradients({"x": 0.0})
        if expected_dx is not None:
            assert g["x"] == pytest.approx(expected_dx)
        else:
            assert g["x"] == pytest.approx(3.0 * 0.25) and p.run({"x": 0.0})["result"] == pytest.approx(1.5)
    with pytest.raises(EvaluationError, match="output"):
        p.gradients({"x": 0.0}, output="nope")


def test_named_and_array_outputs_and_output_choice():
    b = Builder()
    x = b.input("x")
    p = b.build({"double": x * 2, "square": x * x})
    assert p.run({"x": 3}) == {"double": 6.0, "square": 9.0}
    assert p.gradients({"x": 3}, output="square") == {"x": 6.0}
    b2 = Builder()
    y = b2.input("y")
    assert b2.build([y, y + 1]).run({"y": 1}) == {"result[0]": 1.0, "result[1]": 2.0}


def test_step_is_pure():
    b = Builder()
    e = b.input("e", int32(min=0, max=5))
    s = b.state("s", 1, int32(min=0, max=100))
    b.update(s, s + e)
    p = b.build(s * 10)
    assert p.step({"e": 2}) == ({"result": 10.0}, {"s": 3.0})
    assert p.step({"e": 2}, state={"s": 3}) == ({"result": 30.0}, {"s": 5.0})
    assert p.step({"e": 2}) == ({"result": 10.0}, {"s": 3.0})
    with pytest.raises(EvaluationError):
        p.step({"e": 2}, state={"s": 99})  # 101 leaves the state's domain


def test_optimize_schedule_graph_freeze():
    src = "def f(x):\n    a = 2 * 3\n    return x * a + x * 4\n"
    p = compile(src, {"x": float64(min=-5, max=5)})
    o = p.optimize()
    assert len(o.graph()["nodes"]) < len(p.graph()["nodes"])
    for v in (-5.0, 0.5, 3.25):
        assert o.run({"x": v}) == p.run({"x": v})
    layers = p.schedule()
    assert sorted(i for layer in layers for i in layer) == list(range(len(p.graph()["nodes"])))
    g = p.graph()
    assert g["format"] == "tensorcode.program" and g["outputs"] == {"result": len(g["nodes"]) - 1}

    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 2.0)
    v = b.parameter("v", 1.0)
    q = b.build(w * x + v)
    frozen = q.freeze(["w"])
    assert frozen.parameters == {"v": 1.0} and frozen.run({"x": 2}) == q.run({"x": 2})
    assert q.freeze().parameters == {}
    with pytest.raises(Exception, match="nope"):
        q.freeze(["nope"])


def test_json_round_trip_and_bad_artifacts():
    p = div_program()
    text = p.to_json()
    again = Program.from_json(text)
    assert again == p and again.to_json() == text
    assert Program.from_json(json.loads(text)) == p
    assert Program.from_json(text.encode()) == p
    for bad in ("", "{", "[]", '{"format": "x"}', text.replace('"div"', '"divide"'), "\xff\xfe"):
        with pytest.raises(ArtifactError):
            Program.from_json(bad)
    with pytest.raises(TypeError):
        Program.from_json(42)


def test_deeply_nested_json_is_an_error_not_a_crash():
    deep = "[" * 100000 + "]" * 100000
    with pytest.raises(ArtifactError):
        Program.from_json(deep)
    deep_obj = '{"a":' * 100000 + "1" + "}" * 100000
    with pytest.raises(ArtifactError):
        Program.from_json(deep_obj)


def test_analyze():
    p = div_program()
    a = analyze(p)
    assert {"nodes", "outputs", "warnings"} <= set(a)
    assert any(w["message"] == "possible division by zero" for w in a["warnings"])
    assert a["nodes"][0]["interval"] == (-10.0, 10.0)
    with pytest.raises(TypeError):
        analyze("not a program")


def test_repr_and_warnings():
    p = compile("def f(x):\n    unused = x * 2\n    return x\n", {"x": float64()})
    assert "Program" in repr(p)
    assert any("unused" in w for w in p.warnings)


def test_freeze_of_no_names_freezes_nothing():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 2.0)
    p = b.build(w * x)
    assert p.freeze([]).parameters == {"w": 2.0}
    assert p.freeze("w").parameters == {}
    c = Builder()
    y = c.input("y")
    v = c.parameter("v", 1.0)
    c.freeze([])
    assert c.build(v * y).parameters == {"v": 1.0}
    with pytest.raises(TypeError):
        compile("def f(a):\n    return a\n", [("a", int32())])


def test_run_batch_from_several_threads():
    import threading

    import numpy as np
    p = div_program()
    a = np.linspace(-10, 10, 50000)
    b = np.full(50000, 2.0)
    expected = p.run_batch({"a": a, "b": b})["result"]
    results = []

    def work():
        results.append(p.run_batch({"a": a, "b": b})["result"])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all((r == expected).all() for r in results)
