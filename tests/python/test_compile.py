"""compile() of functions and source text, domains, and CompileError."""
import os
import subprocess
import sys

import pytest

from tensorcode.program import (Builder, CompileError, Domain, boolean, compile, float32, float64, int32)


def test_importing_the_package_does_not_import_torch():
    code = "import sys, tensorcode.program; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ),
                         check=True)
    assert out.stdout.strip() == "False"


def test_domains():
    assert repr(int32(min=-128, max=127)) == "int32(min=-128, max=127)"  # as written (test_names.py)
    assert str(int32(min=-128, max=127)) == "int32:-128:127"
    assert str(boolean()) == "bool" and str(float64()) == "float64" and str(float32(min=-1, max=1)) == "float32:-1:1"
    assert int32(min=0, max=3) == int32(min=0, max=3)
    assert isinstance(float64(), Domain)
    with pytest.raises(ValueError, match="minimum is above maximum"):
        int32(min=5, max=1)
    with pytest.raises(ValueError, match="must be integers"):
        int32(min=0.5, max=2)
    with pytest.raises(ValueError, match="finite"):
        float64(min=float("-inf"))
    with pytest.raises(TypeError):
        int32(min="zero")


SOURCE = """
def f(a, b):
    c = a * 2
    return c + b if a > 0 else c - b
"""


def test_compile_source_text_and_domain_spelling():
    p = compile(SOURCE, {"a": "int32:-10:10", "b": float64(min=-1, max=1)})
    assert p.run({"a": 3, "b": 0.5}) == {"result": 6.5}
    assert p.run({"a": -3, "b": 0.5}) == {"result": -6.5}
    assert list(p.inputs) == ["a", "b"] and p.outputs == ["result"]


def test_compile_directives_give_missing_domains():
    src = "# tensorcode: input a=int32:0:3\ndef g(a):\n    return a + 1\n"
    assert compile(src).run({"a": 2}) == {"result": 3}


_LONG_LOOP = ("def total(x):\n    s = x\n    for i in range(2000):\n        s = s * 0.5 + x\n    return s\n")


def test_the_compile_directive_of_the_source_sets_dtype_and_budgets():
    # What the IDE's Compile Options save with a file (issue 24 item 8).
    with pytest.raises(CompileError, match="iteration budget"):
        compile(_LONG_LOOP, {"x": float64()})
    saved = "# tensorcode: compile dtype=float32 max-iterations=4096\n" + _LONG_LOOP
    p = compile(saved, {"x": float64()})
    assert p.dtype == "float32"
    # An argument given wins over the directive.
    assert compile(saved, {"x": float64()}, dtype="float64").dtype == "float64"
    with pytest.raises(CompileError, match="iteration budget"):
        compile(saved, {"x": float64()}, max_iterations=100)
    with pytest.raises(CompileError, match="node"):
        compile("# tensorcode: compile max-iterations=4096 max-nodes=50\n" + _LONG_LOOP, {"x": float64()})
    with pytest.raises(CompileError, match="speed"):
        compile("# tensorcode: compile speed=11\n" + _LONG_LOOP, {"x": float64()})


def test_compile_options_reach_the_core():
    p = compile(SOURCE, {"a": int32(min=-10, max=10), "b": float64()}, dtype="float32", semantics="hybrid",
                temperature=0.5)
    assert p.dtype == "float32" and p.semantics == "hybrid"
    with pytest.raises(ValueError, match="^semantics must be exact, relaxed or hybrid, got 'fuzzy'$"):
        compile(SOURCE, {"a": int32(), "b": float64()}, semantics="fuzzy")


@pytest.mark.parametrize("options, message", [
    # The words are core's option layer's, the same as the TypeScript SDK's.
    ({"dtype": "float16"}, "dtype must be float64 or float32, got 'float16'"),
    ({"dtype": 3}, "dtype must be float64 or float32, got number"),
    ({"surrogate": "tanh"}, "surrogate must be sigmoid, got 'tanh'"),
    ({"temperature": float("inf")}, "temperature must be finite and greater than 0, got inf"),
    ({"temperature": 0}, "temperature must be finite and greater than 0, got 0"),
    ({"max_iterations": -1}, "max_iterations must be an integer from 1 to 18446744073709551615, got -1"),
    ({"max_nodes": 0}, "max_nodes must be an integer from 1 to 2305843009213693951, got 0"),
    # Issue 37 item 3: one rule and one range for every client (core's option table).
    ({"max_nodes": "100"}, "max_nodes must be an integer from 1 to 2305843009213693951, got string"),
    ({"max_nodes": 1.5}, "max_nodes must be an integer from 1 to 2305843009213693951, got 1.5"),
    ({"max_nodes": True}, "max_nodes must be an integer from 1 to 2305843009213693951, got boolean"),
    ({"max_nodes": 2**61}, "max_nodes must be an integer from 1 to 2305843009213693951, got 2305843009213693952"),
    ({"max_nodes": 2**64 - 1}, "max_nodes must be an integer from 1 to 2305843009213693951, got 18446744073709551615"),
    ({"max_iterations": 0}, "max_iterations must be an integer from 1 to 18446744073709551615, got 0"),
    ({"max_iterations": "7"}, "max_iterations must be an integer from 1 to 18446744073709551615, got string"),
])
def test_bad_compile_options_say_what_is_accepted(options, message):
    with pytest.raises(ValueError) as e:
        compile(SOURCE, {"a": int32(), "b": float64()}, **options)
    assert str(e.value) == message


def test_budgets_take_integers_of_any_integer_type_up_to_the_ceiling():
    import numpy as np
    p = compile(SOURCE, {"a": int32(), "b": float64()}, max_nodes=np.int64(2**61 - 1), max_iterations=np.uint32(5))
    assert p.dtype == "float64"
    # 2^61 - 1 is the largest: its 8 arguments per node still fit (2^61 wrapped them to 0).
    compile(SOURCE, {"a": int32(), "b": float64()}, max_nodes=2**61 - 1)


@pytest.mark.parametrize("options, message", [
    ({"semantics": "fuzzy"}, "semantics must be exact, relaxed or hybrid, got 'fuzzy'"),
    ({"dtype": "int8"}, "dtype must be float64 or float32, got 'int8'"),
    ({"temperature": -1.0}, "temperature must be finite and greater than 0, got -1"),
])
def test_bad_builder_options_use_the_same_words(options, message):
    with pytest.raises(ValueError) as e:
        Builder(**options)
    assert str(e.value) == message


def test_syntax_error_is_located():
    with pytest.raises(CompileError) as e:
        compile("def f(a):\n    return a +\n", {"a": int32()})
    assert isinstance(e.value, ValueError)
    assert e.value.line == 2 and e.value.column is not None
    assert str(e.value).startswith("<source>:2:")


def test_budgets():
    src = "def f(a):\n    s = a\n    for i in range(2000):\n        s = s + 1\n    return s\n"
    with pytest.raises(CompileError, match="iteration"):
        compile(src, {"a": int32(min=0, max=1)})
    assert compile(src, {"a": int32(min=0, max=1)}, max_iterations=5000).run({"a": 1}) == {"result": 2001}
    with pytest.raises(CompileError, match="node"):
        compile(src, {"a": int32(min=0, max=1)}, max_iterations=5000, max_nodes=100)


def test_a_missing_domain_is_a_compile_error():
    with pytest.raises(CompileError, match="b"):
        compile(SOURCE, {"a": int32()})


def test_callable_errors_have_file_positions():
    def bad(a):
        return unknown_call(a)  # noqa: F821

    with pytest.raises(CompileError) as e:
        compile(bad, {"a": int32()})
    assert e.value.line == bad.__code__.co_firstlineno + 1
    assert e.value.column == 16  # where `unknown_call` starts in this file
    assert __file__ in str(e.value)


def test_closures_defaults_decorators_and_lambdas_are_rejected():
    k = 3

    def closure(a):
        return a + k

    def defaults(a=1):
        return a

    def deco(f):
        return f

    @deco
    def decorated(a):
        return a

    with pytest.raises(CompileError, match="closure"):
        compile(closure, {"a": int32()})
    with pytest.raises(CompileError, match="default"):
        compile(defaults, {"a": int32()})
    with pytest.raises(CompileError, match="decorat"):
        compile(decorated, {"a": int32()})
    with pytest.raises(CompileError, match="lambda"):
        compile(lambda a: a, {"a": int32()})
    with pytest.raises(CompileError, match="only plain Python functions"):
        compile(len, {"a": int32()})
    with pytest.raises(TypeError):
        compile(42, {})
    with pytest.raises(TypeError):
        compile(SOURCE, {"a": 5, "b": float64()})


def test_star_args_are_rejected():
    def star(*a):
        return 1

    with pytest.raises(CompileError):
        compile(star, {})


RAISING = """
def tax(income, rate):
    if income < 0:
        raise ValueError("income must not be negative")
    assert rate <= 30, "rate above 30"
    return income * rate // 100
"""


def test_raise_and_assert_fail_the_case_with_the_users_message():
    from tensorcode.program import EvaluationError
    p = compile(RAISING, {"income": "int32:-50:200", "rate": "int32:0:40"})
    assert p.run({"income": 100, "rate": 20}) == {"result": 20}
    with pytest.raises(EvaluationError) as e:
        p.run({"income": -1, "rate": 20})
    assert "raised ValueError: income must not be negative" in str(e.value)
    assert (e.value.line, e.value.column) == (4, 9)
    assert p.graph()["nodes"][e.value.node]["op"] == "raise"
    with pytest.raises(EvaluationError) as e:
        p.run({"income": 100, "rate": 31})
    assert "raised AssertionError: rate above 30" in str(e.value)
    assert (e.value.line, e.value.column) == (5, 5)
    # a batch fails at the first raising case, as it does for a division by zero
    with pytest.raises(EvaluationError) as e:
        p.run_batch([{"income": 1, "rate": 1}, {"income": -5, "rate": 1}])
    assert e.value.case == 1 and "ValueError" in str(e.value)
    # the artifact carries the exception in the node's name
    again = type(p).from_json(p.to_json())
    with pytest.raises(EvaluationError, match="raised ValueError: income must not be negative"):
        again.run({"income": -1, "rate": 20})
