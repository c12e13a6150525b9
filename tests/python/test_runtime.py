"""Runtime: dispatch, snapshot, restore, replay, state, steps, budgets."""
import json

import pytest

from tensorcode.program import ArtifactError, Builder, EvaluationError, Runtime, int32


def counter():
    b = Builder()
    event = b.input("event", int32(min=0, max=1))
    count = b.state("count", 0, int32(min=0, max=3))
    b.update(count, count + event)
    return b.build(count)


def test_dispatch_state_steps_and_budget():
    rt = Runtime(counter(), max_steps=5)
    assert rt.state == {"count": 0} and rt.steps == 0 and rt.max_steps == 5
    assert rt.dispatch({"event": 1}) == {"result": 0}
    assert rt.state == {"count": 1} and rt.steps == 1
    with pytest.raises(EvaluationError):
        rt.dispatch({"event": 2})  # outside the input's domain
    assert rt.state == {"count": 1} and rt.steps == 1, "a failed event changes nothing"
    rt.dispatch({"event": 1})
    rt.dispatch({"event": 1})
    with pytest.raises(EvaluationError):
        rt.dispatch({"event": 1})  # count would become 4 > 3
    assert rt.state == {"count": 3} and rt.steps == 3
    rt.dispatch({"event": 0})
    rt.dispatch({"event": 0})
    with pytest.raises(EvaluationError, match="budget|steps"):
        rt.dispatch({"event": 0})
    assert rt.steps == 5


def test_snapshot_restore_keeps_budget():
    rt = Runtime(counter(), max_steps=2)
    rt.dispatch({"event": 1})
    snap = rt.snapshot()
    assert snap["format"] == "tensorcode.snapshot" and snap["state"] == {"count": 1} and snap["steps"] == 1
    again = Runtime.restore(json.dumps(snap))
    assert again.steps == 1 and again.max_steps == 2
    again.dispatch({"event": 1})
    with pytest.raises(EvaluationError):
        again.dispatch({"event": 0})
    assert Runtime.restore(snap).program == counter()


def test_replay_and_failure_position():
    rt = Runtime(counter())
    records = rt.replay([{"event": 1}, {"event": 0}, {"event": 1}])
    assert records[-1] == {"step": 3, "outputs": {"result": 1.0}, "state": {"count": 2.0}}
    with pytest.raises(EvaluationError) as e:
        rt.replay([{"event": 1}, {"event": 1}])
    assert e.value.event == 1 and len(e.value.records) == 1
    assert rt.state == {"count": 3} and rt.steps == 4


def test_bad_snapshots_are_errors():
    rt = Runtime(counter())
    snap = rt.snapshot()
    for bad in ("", "{}", "[" * 100000, json.dumps({**snap, "steps": 10 ** 9}),
                json.dumps({**snap, "state": {"count": 99}}), json.dumps({**snap, "state": {}})):
        with pytest.raises(ArtifactError):
            Runtime.restore(bad)
    with pytest.raises(TypeError):
        Runtime.restore(42)
    with pytest.raises(TypeError):
        Runtime("program")
    with pytest.raises(TypeError):
        rt.dispatch("event")


def test_a_binding_cannot_dispatch_into_its_own_runtime():
    b = Builder()
    e = b.input("e", int32(min=0, max=9))
    s = b.state("s", 0, int32(min=0, max=1000))
    b.update(s, b.call("f", s, e))
    holder = {}

    def f(s, e):
        holder["rt"].dispatch({"e": 1})
        return s + e

    rt = Runtime(b.build(s), bindings={"f": (f, None)})
    holder["rt"] = rt
    with pytest.raises(EvaluationError, match="already dispatching"):
        rt.dispatch({"e": 2})
    assert rt.state == {"s": 0} and rt.steps == 0


def test_replay_names_the_malformed_event_and_keeps_what_committed():
    # Issue 23 (smaller): a wrong type in event 3 raised a bare TypeError
    # with no .event or .records, though two events had committed.
    from tensorcode.program import Builder, Runtime, float64, int32
    b = Builder()
    x = b.input("x", float64(-10, 10))
    count = b.state("count", 0, int32(0, 100))
    b.update(count, count + 1)
    rt = Runtime(b.build(count + x))
    with pytest.raises(TypeError, match="^event 2: input 'x' must be a number, not str") as e:
        rt.replay([{"x": 1}, {"x": 2}, {"x": "three"}])
    assert e.value.event == 2 and [r["step"] for r in e.value.records] == [1, 2] and rt.steps == 2
    with pytest.raises(TypeError, match="^event 0: ") as e:
        rt.replay([5])
    assert e.value.event == 0 and e.value.records == [] and rt.steps == 2
