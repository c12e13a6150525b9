"""tensorcode.program.diff: the structured result, the same document and
text as `tensorcode diff`, and errors for bad arguments."""
import json
import pathlib
import subprocess

import pytest

from conftest import CLI
from tensorcode.program import Builder, Diff, EvaluationError, Program, compile, diff, float64

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "diff"

EDITED_A = """
def f(x, w):
    y = x * w + 1
    return y - x
"""
EDITED_B = EDITED_A.replace("y - x", "y + x")
DOMAINS = {"x": float64(min=-10, max=10), "w": float64(min=-10, max=10)}


def test_a_program_against_itself_is_the_same():
    p = compile(EDITED_A, DOMAINS)
    d = diff(p, p)
    assert isinstance(d, Diff)
    assert d.same and d.same_structure
    assert d.same_values is None
    assert d.summary == {"unchanged": 6, "changed": 0, "added": 0, "removed": 0}
    assert d.a == d.b == {"nodes": 6, "outputs": 1}
    assert d.outputs[0]["circuit"] == "same"


def test_an_edited_statement_is_one_changed_op_with_values_on_the_cases():
    a, b = compile(EDITED_A, DOMAINS), compile(EDITED_B, DOMAINS)
    d = diff(a, b, cases=[{"x": 0, "w": 1}, {"x": 2, "w": 1}])
    assert not d.same and d.same_values is False
    [changed] = d.nodes["changed"]
    assert (changed["a_op"], changed["op"], changed["fields"]) == ("sub", "add", ["op"])
    assert changed["location"]["line"] == 4
    out = d.outputs[0]
    assert (out["cases"], out["differing"]) == (2, 1)
    assert out["examples"] == [{"case": 1, "a": 1, "b": 5}]


def test_optimize_keeps_the_values():
    p = Program.from_json((DATA / "optimize" / "a.json").read_text())
    d = diff(p, p.optimize(), cases=[{"x": 1.5, "w": -2}, {"x": -3, "w": 4}])
    assert not d.same_structure
    assert d.same_values is True
    assert d.summary["removed"] > 0


def test_a_trained_parameter():
    def program(weight):
        b = Builder()
        x = b.input("x", float64(min=-5, max=5))
        w = b.parameter("w", weight)
        return b.build(x * w + 1)

    d = diff(program(0.5), program(0.75))
    [param] = d.parameters
    assert param["name"] == "w" and param["status"] == "changed" and param["fields"] == ["value"]
    assert (param["a"]["value"], param["b"]["value"]) == (0.5, 0.75)


def test_the_document_and_text_are_the_clis():
    folder = DATA / "trained"
    a, b = (Program.from_json((folder / f).read_text()) for f in ("a.json", "b.json"))
    cases = [json.loads(line) for line in (folder / "cases.jsonl").read_text().splitlines() if line.strip()]
    d = diff(a, b, cases=cases, labels=(str(folder / "a.json"), str(folder / "b.json")))
    run = subprocess.run([CLI, "diff", str(folder / "a.json"), str(folder / "b.json"), "--cases",
                          str(folder / "cases.jsonl"), "--json"], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert d.to_dict() == json.loads(run.stdout)
    text = subprocess.run([CLI, "diff", str(folder / "a.json"), str(folder / "b.json"), "--cases",
                           str(folder / "cases.jsonl")], capture_output=True, text=True)
    assert str(d) == text.stdout
    # to_dict is a copy: changing it leaves the result alone.
    doc = d.to_dict()
    doc["outputs"].clear()
    assert d.outputs


def test_the_result_is_frozen():
    p = compile(EDITED_A, DOMAINS)
    d = diff(p, p)
    with pytest.raises(Exception):
        d.same = False  # type: ignore[misc]


def test_bad_arguments_are_errors():
    a, b = compile(EDITED_A, DOMAINS), compile(EDITED_B, DOMAINS)
    with pytest.raises(TypeError, match="Program"):
        diff(a, "b.json")
    with pytest.raises(TypeError, match="list of"):
        diff(a, b, cases={"x": 1, "w": 2})
    with pytest.raises(TypeError, match="case 1 must be a dict"):
        diff(a, b, cases=[{"x": 1, "w": 2}, 3])
    with pytest.raises(ValueError, match="case 1: the case gives no value for input 'w'"):
        diff(a, b, cases=[{"x": 1, "w": 2}, {"x": 1}])
    with pytest.raises(ValueError, match="cases is empty"):
        diff(a, b, cases=[])
    # issue 37: these two were EvaluationErrors naming no case.
    with pytest.raises(ValueError, match="^case 0: input 'z' is an input of neither program$") as info:
        diff(a, b, cases=[{"x": 1, "w": 2, "z": 3}, {"x": 1, "w": 2, "z": 3}])
    assert not isinstance(info.value, EvaluationError)
    with pytest.raises(ValueError, match="^case 0: the case gives no value for input 'w' of program a ") as info:
        diff(a, b, cases=[{"x": 1}, {"x": 2}])
    assert not isinstance(info.value, EvaluationError)
    with pytest.raises(ValueError, match="max_examples"):
        diff(a, b, max_examples=-1)
    with pytest.raises(ValueError, match="limit"):
        diff(a, b, limit=0)
    with pytest.raises(TypeError, match="labels"):
        diff(a, b, labels="ab")
