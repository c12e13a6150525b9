"""The reference description's Python examples, verbatim, one test each
(the learned-correction example needs torch: test_torch_examples.py)."""


def test_compile_and_check_a_rule():
    from tensorcode.program import compile, int32

    def choose(a):
        return 10 if a > 4 else 12

    program = compile(choose, inputs={"a": int32(min=-128, max=127)})
    assert program.run({"a": 5}) == {"result": 10}
    assert program.verify()["cases"] == 256
    artifact = program.to_json()
    assert artifact
    assert program.verify()["passed"] is True
    assert program.run({"a": 4}) == {"result": 12}


def test_builder_with_hybrid_gradients():
    from tensorcode.program import Builder, Runtime, Program, float64  # noqa: F401
    b = Builder(semantics="hybrid", surrogate="sigmoid")
    x = b.input("x", float64())
    w = b.parameter("weight", 0.0)
    p = b.build(b.select(x > 4, w * x, 0))
    assert p.run({"x": 5}) == {"result": 0.0}
    g = p.gradients({"x": 5})
    # Hybrid select: d/dweight = c * x = 5; d/dx = c * w + (a - b) * sigmoid'(x - 4) = 0 with w = 0.
    assert g == {"x": 0.0, "weight": 5.0}


def test_state_and_events():
    from tensorcode.program import Builder, Runtime, int32
    b = Builder()
    event = b.input("event", int32(min=0, max=1))
    count = b.state("count", 0, int32(min=0, max=100))
    b.update(count, count + event)
    runtime = Runtime(b.build(count), max_steps=100)
    assert runtime.dispatch({"event": 1}) == {"result": 0}
    saved = runtime.snapshot()
    resumed = Runtime.restore(saved)
    assert resumed.dispatch({"event": 1}) == {"result": 1}
    assert resumed.steps == 2 and resumed.state == {"count": 2}
