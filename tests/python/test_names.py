"""First-day frictions: a Domain reads back as it was written, and a wrong
input name is answered with the valid names and the closest one."""
import numpy as np
import pytest

from tensorcode.program import Builder, EvaluationError, Runtime, boolean, float32, float64, int32


def test_a_domain_prints_as_it_is_written():
    assert repr(int32(min=-128, max=127)) == "int32(min=-128, max=127)"
    assert repr(int32()) == "int32()"
    assert repr(int32(min=0)) == "int32(min=0, max=None)"
    assert repr(float64(min=0.5, max=4)) == "float64(min=0.5, max=4.0)"
    assert repr(float32(min=-1, max=1)) == "float32(min=-1.0, max=1.0)"
    assert repr(boolean()) == "boolean()"
    assert eval(repr(int32(min=-128, max=127))) == int32(min=-128, max=127)  # noqa: S307 - our own repr


def thermostat():
    b = Builder()
    temp = b.input("temp")
    target = b.input("target")
    return b.build(b.select(temp < target, 1, 0))


def test_an_unknown_input_names_the_closest_and_the_valid_ones():
    p = thermostat()
    with pytest.raises(EvaluationError) as e:
        p.run({"tmp": 18.0, "target": 20.0})
    text = str(e.value)
    assert "'tmp' is not an input of the program: did you mean 'temp'?" in text
    assert "(its inputs: 'temp', 'target')" in text
    assert e.value.message.endswith("(its inputs: 'temp', 'target')")


@pytest.mark.parametrize("call", [
    lambda p, c: p.run(c),
    lambda p, c: p.run(c, plan="interpreter"),
    lambda p, c: p.gradients(c),
    lambda p, c: p.step(c),
    lambda p, c: p.run_batch([c, c]),
    lambda p, c: p.run_batch({k: np.array([v]) for k, v in c.items()}),
    lambda p, c: p.gradients_batch({k: np.array([v]) for k, v in c.items()}),
    lambda p, c: Runtime(p).dispatch(c),
    lambda p, c: Runtime(p).step(c),
])
def test_every_entry_point_gives_the_hint(call):
    with pytest.raises(EvaluationError, match="did you mean 'temp'"):
        call(thermostat(), {"tmp": 18.0, "target": 20.0})


def test_a_name_far_from_every_input_lists_them_without_a_guess():
    with pytest.raises(EvaluationError) as e:
        thermostat().run({"humidity": 1.0, "target": 20.0, "temp": 1.0})
    assert "did you mean" not in str(e.value)
    assert "'humidity' is not an input of the program (its inputs: 'temp', 'target')" in str(e.value)


def test_other_errors_are_left_as_they_were():
    b = Builder()
    x = b.input("x")
    p = b.build(1 / x)
    with pytest.raises(EvaluationError) as e:
        p.run({"x": 0.0})
    assert "is not an input" not in str(e.value)
    with pytest.raises(EvaluationError) as e:
        p.run({})
    assert "is not an input" not in str(e.value)
