"""Program.ir()/dot() and Program.fit() against the CLI binary (the same core
functions must give the same text and the same bits), analyze() locations,
and pickling of Program and Runtime through the artifact and the snapshot."""
import copy
import json
import pickle
import subprocess

import pytest

from conftest import CLI
from tensorcode.program import Builder, Runtime, analyze, compile, float64, int32

RULE = """
def rule(a, x):
    y = x * 2.0
    if a > 4:
        y = y + 1.0
    return y
"""
DOMAINS = {"a": int32(min=-8, max=8), "x": float64(min=-10, max=10)}


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, check=True).stdout


def trainable():
    b = Builder(semantics="hybrid")
    x = b.input("x")
    w = b.parameter("w", 0.5)
    c = b.parameter("c", -0.25)
    return b.build({"result": b.select(x > 0, w * x, c * x) + c, "twice": w * 2})


def test_ir_and_dot_are_the_cli_texts(tmp_path):
    program = compile(RULE, DOMAINS)
    artifact = tmp_path / "rule.json"
    artifact.write_text(program.to_json())
    assert program.ir() == cli("info", str(artifact), "--ir")
    assert program.dot() == cli("info", str(artifact), "--dot")
    # Compiled from source by either side: the same listing, locations included.
    source = tmp_path / "rule.py"
    source.write_text(RULE)
    from_file = compile(source.read_text(), DOMAINS)
    assert from_file.ir() == cli("info", str(source), "--input", "a=int32:-8:8", "--input", "x=float64:-10:10", "--ir")
    assert "; @4:" in from_file.ir()


def test_analyze_nodes_carry_their_source_location():
    program = compile(RULE, DOMAINS)
    nodes = {n["id"]: n for n in analyze(program)["nodes"]}
    graph = program.graph()["nodes"]
    compare = next(n for n in graph if n["op"] == "gt")
    node = nodes[compare["id"]]
    assert (node["line"], node["column"]) == (4, 8)  # `a > 4` in RULE
    built = analyze(trainable())["nodes"]
    assert all(n["line"] is None and n["column"] is None for n in built)


def write_cases(path, cases):
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))


@pytest.mark.parametrize("optimizer,lr,steps", [("sgd", 0.05, 7), ("adam", 0.1, 12)])
def test_fit_gives_the_bits_of_tensorcode_fit(tmp_path, optimizer, lr, steps):
    program = trainable()
    cases = [{"x": x / 3.0, "y": 0.7 * x / 3.0 - 0.1, "z": 1.5} for x in range(-6, 7)]
    data = tmp_path / "cases.jsonl"
    write_cases(data, cases)
    artifact = tmp_path / "p.json"
    artifact.write_text(program.to_json())
    out = tmp_path / "trained.json"
    printed = json.loads(cli("fit", str(artifact), "--data", str(data), "--target", "result=y", "--target",
                             "twice=z", "--optimizer", optimizer, "--lr", repr(lr), "--steps", str(steps),
                             "-o", str(out)))
    report = program.fit(cases, {"result": "y", "twice": "z"}, optimizer=optimizer, lr=lr, steps=steps)
    assert report["program"].to_json() == out.read_text()
    assert report["steps"] == printed["steps"] == steps
    assert report["initial_loss"] == printed["initial_loss"]
    assert report["final_loss"] == printed["final_loss"]
    assert report["parameters"] == printed["parameters"]
    assert report["parameters"] != program.parameters
    # Columns and several threads: the same bits.
    columns = {k: [c[k] for c in cases] for k in cases[0]}
    again = program.fit(columns, {"result": "y", "twice": "z"}, optimizer=optimizer, lr=lr, steps=steps, threads=2)
    assert again["program"].to_json() == out.read_text()


def test_fit_rejects_what_the_cli_rejects():
    program = trainable()
    with pytest.raises(ValueError, match="case 1: field 'q' is neither an input nor a target"):
        program.fit([{"x": 1.0, "y": 1.0}, {"x": 1.0, "y": 1.0, "q": 2}], {"result": "y"})
    with pytest.raises(ValueError, match="case 0: missing target field 'y'"):
        program.fit([{"x": 1.0}], {"result": "y"})
    with pytest.raises(ValueError, match="missing input 'x'"):
        program.fit([{"y": 1.0}], {"result": "y"})
    with pytest.raises(ValueError, match="not a finite number"):
        program.fit([{"x": float("nan"), "y": 1.0}], {"result": "y"})
    with pytest.raises(ValueError, match="optimizer"):
        program.fit([{"x": 1.0, "y": 1.0}], {"result": "y"}, optimizer="lbfgs")
    b = Builder()
    x = b.input("x")
    divided = b.build(b.parameter("w", 1.0) / x)
    from tensorcode.program import EvaluationError
    with pytest.raises(EvaluationError, match="case 1: node 2 \\(div\\): division by zero") as e:
        divided.fit([{"x": 1.0, "y": 1.0}, {"x": 0.0, "y": 1.0}], {"result": "y"})
    assert (e.value.case, e.value.node) == (1, 2)
    with pytest.raises(KeyError, match="no parameter 'nope'"):
        program.fit([{"x": 1.0, "y": 1.0}], {"result": "y"}, params={"nope": 1.0})


def test_program_pickles_and_deep_copies_through_its_artifact():
    program = compile(RULE, DOMAINS)
    trained = trainable().fit([{"x": 1.0, "y": 3.0}, {"x": -2.0, "y": 1.0}], {"result": "y"}, steps=3,
                                lr=0.1)["program"]
    for p in (program, trained, program.optimize()):
        for clone in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
            assert clone == p
            assert clone.to_json() == p.to_json()
            assert clone.parameters == p.parameters
    assert trained.parameters != trainable().parameters
    # The Python function travels with a deep copy (verify() still has it).
    def choose(a):
        return 10 if a > 4 else 12
    local = compile(choose, {"a": int32(min=-128, max=127)})
    assert copy.deepcopy(local).verify()["passed"]
    # pickle cannot find a local function by name: the copy verifies only with a reference.
    loaded = pickle.loads(pickle.dumps(local))
    assert loaded == local
    assert loaded.verify(choose)["passed"]


def bound_program():
    b = Builder()
    x = b.input("x")
    return b.build(b.call("twice", x)).bind({"twice": lambda v: 2 * v})


def test_a_bound_program_or_runtime_refuses_to_pickle():
    bound = bound_program()
    assert bound.run({"x": 2.0}) == {"result": 4.0}
    for attempt in (lambda: pickle.dumps(bound), lambda: copy.deepcopy(bound)):
        with pytest.raises(TypeError, match="host bindings cannot be pickled.*bind\\(\\) it again"):
            attempt()
    runtime = Runtime(bound)
    with pytest.raises(TypeError, match="host bindings cannot be pickled.*bindings="):
        pickle.dumps(runtime)


def counter():
    b = Builder()
    event = b.input("event", int32(min=0, max=1))
    count = b.state("count", 0, int32(min=0, max=100))
    b.update(count, count + event)
    return b.build(count)


def test_runtime_pickles_through_its_snapshot():
    runtime = Runtime(counter(), max_steps=10)
    for e in (1, 1, 0):
        runtime.dispatch({"event": e})
    for clone in (pickle.loads(pickle.dumps(runtime)), copy.deepcopy(runtime)):
        assert clone.snapshot() == runtime.snapshot()
        assert (clone.state, clone.steps, clone.max_steps) == ({"count": 2.0}, 3, 10)
        assert clone.dispatch({"event": 1}) == {"result": 2.0}
        assert clone.state == {"count": 3.0}
    assert runtime.state == {"count": 2.0}  # the copies are independent


def test_unpickling_checks_the_artifact():
    data = pickle.dumps(trainable())
    broken = data.replace(b'"op": "mul"', b'"op": "mup"')  # same length: the pickle stays readable
    assert broken != data
    from tensorcode.program import ArtifactError
    with pytest.raises(ArtifactError):
        pickle.loads(broken)


