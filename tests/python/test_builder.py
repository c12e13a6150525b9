"""Builder: every method, operator overloading, and misuse reported where it happens."""
import pytest

from tensorcode.program import Builder, CompileError, EvaluationError, boolean, float64, int32


def test_operators_and_reflected_operators():
    b = Builder()
    x = b.input("x")
    y = b.input("y")
    outs = {"add": x + y, "radd": 1 + x, "sub": x - y, "rsub": 10 - x, "mul": x * y, "rmul": 2 * x,
            "div": x / y, "rdiv": 1 / y, "neg": -x, "pos": +x, "floordiv": x // y, "mod": x % y,
            "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y, "rgt": 4 < x}
    p = b.build(outs)
    r = p.run({"x": 7.0, "y": 2.0})
    assert r == {"add": 9.0, "radd": 8.0, "sub": 5.0, "rsub": 3.0, "mul": 14.0, "rmul": 14.0, "div": 3.5,
                 "rdiv": 0.5, "neg": -7.0, "pos": 7.0, "floordiv": 3.0, "mod": 1.0, "lt": 0.0, "le": 0.0,
                 "gt": 1.0, "ge": 1.0, "rgt": 1.0}


def test_symbolic_values_have_no_truth_value():
    b = Builder()
    x = b.input("x")
    with pytest.raises(TypeError, match="select"):
        bool(x > 4)
    with pytest.raises(TypeError, match="select"):
        if x > 4:
            pass
    with pytest.raises(TypeError):
        _ = 1 < x < 3  # chained comparisons need a truth value
    with pytest.raises(TypeError, match="op\\('eq'"):
        _ = x == 4
    with pytest.raises(TypeError):
        _ = x + "a"
    assert "gt" in repr(x > 4) and (x > 4).op == "gt"


def test_op_select_relu_sigmoid_constant():
    b = Builder()
    x = b.input("x")
    c = b.constant(2.5)
    p = b.build({"eq": b.op("eq", x, 3), "ne": b.op("ne", x, 3), "relu": b.relu(x - 5),
                 "sig": b.sigmoid(x * 0), "sel": b.select(x > c, x, c)})
    assert p.run({"x": 3}) == {"eq": 1.0, "ne": 0.0, "relu": 0.0, "sig": 0.5, "sel": 3.0}
    with pytest.raises(CompileError, match="unknown op 'nonsense'"):
        Builder().op("nonsense", 1)


def test_gather_one_hot_gather_one_hot():
    b = Builder()
    i = b.input("i", int32(min=0, max=2))
    values = [10, 20, 30]
    sel = b.one_hot(i, 3)
    assert len(sel) == 3
    p = b.build({"g": b.gather(values, i), "goh": b.gather_one_hot(sel, values)})
    for k in range(3):
        assert p.run({"i": k}) == {"g": values[k], "goh": values[k]}


def test_gather_one_hot_is_checked():
    b = Builder()
    s0 = b.input("s0", boolean())
    s1 = b.input("s1", boolean())
    p = b.build(b.gather_one_hot([s0, s1], [1.0, 2.0]))
    assert p.run({"s0": 0, "s1": 1}) == {"result": 2.0}
    with pytest.raises(EvaluationError):
        p.run({"s0": 1, "s1": 1})


def test_affine_and_sparse_affine():
    b = Builder()
    x = b.input("x")
    y = b.input("y")
    z = b.input("z")
    p = b.build({"a": b.affine([x, y, z], [1.0, 2.0, 3.0], bias=0.5),
                 "s": b.sparse_affine([x, y, z], [0, 2], [4.0, 5.0]),
                 "nobias": b.affine([x], [2.0])})
    assert p.run({"x": 1, "y": 2, "z": 3}) == {"a": 14.5, "s": 19.0, "nobias": 2.0}
    with pytest.raises(CompileError, match="one coefficient per argument"):
        Builder().affine([1, 2], [1.0])


def test_scan():
    b = Builder()
    x = b.input("x")
    p = b.build(b.scan(lambda carry, item: carry * x + item, 0, [1, 2, 3]))
    assert p.run({"x": 10}) == {"result": 123.0}

    def boom(carry, item):
        raise RuntimeError("body failed")

    with pytest.raises(RuntimeError, match="body failed"):
        Builder().scan(boom, 0, [1])


def test_call_binds_at_run_time():
    b = Builder()
    x = b.input("x")
    p = b.build(b.call("twice", x, 1))
    with pytest.raises(EvaluationError, match="twice"):
        p.run({"x": 2})
    assert p.run({"x": 2}, bindings={"twice": (lambda a, c: 2 * a + c, None)}) == {"result": 5.0}


def test_include_freeze_and_prefix():
    inner = Builder()
    a = inner.input("a")
    k = inner.parameter("k", 3.0)
    prog = inner.build({"out": a * k, "other": a})
    b = Builder()
    x = b.input("x")
    region = b.include(prog, {"a": x}, prefix="inner")
    assert list(region) == ["out", "other"]
    p = b.build(region["out"] + 1)
    assert p.parameters == {"inner.k": 3.0}
    assert p.run({"x": 2}) == {"result": 7.0}
    with pytest.raises(CompileError, match="not wired"):
        Builder().include(prog, {}, prefix="r")
    with pytest.raises(TypeError):
        Builder().include("prog", {})

    f = Builder()
    y = f.input("y")
    w = f.parameter("w", 2.0)
    f.freeze()
    frozen = f.build(w * y)
    assert frozen.parameters == {} and frozen.run({"y": 3}) == {"result": 6.0}


def test_included_program_keeps_its_semantics():
    rules = Builder(semantics="relaxed")
    a = rules.input("a")
    relaxed = rules.build(rules.select(a > 0, 1.0, 0.0))
    b = Builder()
    x = b.input("x")
    p = b.build(b.include(relaxed, {"a": x})["result"])
    assert p.run({"x": 0}) == {"result": 0.5}
    assert p.graph()["nodes"][-1]["semantics"] == "relaxed"


def test_misuse_is_reported_at_once():
    a = Builder()
    b = Builder()
    x = a.input("x")
    with pytest.raises(CompileError, match="another builder"):
        b.select(x, 1, 2)
    with pytest.raises(TypeError):
        a.input("y", 42)
    with pytest.raises(ValueError, match="unknown domain type"):
        a.input("y", "not a domain")
    with pytest.raises(TypeError):
        a.update(1, 2)
    c = Builder()
    s = c.state("s", 0, int32(min=0, max=9))
    c.update(s, s + 1)
    with pytest.raises(CompileError, match="updated twice"):
        c.update(s, s + 1)
    d = Builder()
    d.input("x")
    d.build(1)
    with pytest.raises(CompileError, match="already"):
        d.build(2)
    e = Builder()
    e.input("x")
    e.input("x")
    with pytest.raises(CompileError):
        e.build(0)
    with pytest.raises(ValueError):
        Builder(semantics="fuzzy")
    with pytest.raises(ValueError):
        Builder(temperature=0)


def test_large_builder_chain():
    b = Builder()
    x = b.input("x", float64(min=-1, max=1))
    v = x
    for _ in range(20000):
        v = v + 1
    assert b.build(v).run({"x": 0.5}) == {"result": 20000.5}
