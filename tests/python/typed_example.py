"""A strictly typed client of tensorcode.program: ctest python.mypy_strict
runs `mypy --strict` on it (against the package's .pyi stubs) and then runs
it. A type the stubs get wrong fails the first step; a stub that promises
something the package does not do fails the second."""
from typing import Dict, List, Optional

from tensorcode.program import (Builder, CompileError, Diff, Domain, Program, Runtime, compile, diff, float64,
                                int32)


def choose(a: int) -> int:
    return 10 if a > 4 else 12


def thermostat(t: float, setpoint: float) -> float:
    error = setpoint - t
    return 1.0 if error > 0.5 else 0.0


def scaled(builder: Builder) -> Program:
    x = builder.input("x", float64(min=-10, max=10))
    w = builder.parameter("w", 2.0)
    return builder.build({"y": x * w + 1})


def main() -> None:
    program: Program = compile(choose, inputs={"a": int32(min=-128, max=127)})
    result: Dict[str, float] = program.run({"a": 5})
    assert result == {"result": 10.0}
    assert program.verify()["passed"] is True
    domains: Dict[str, Domain] = program.inputs
    assert list(domains) == ["a"]

    rule = compile(thermostat, inputs={"t": float64(min=-50, max=50), "setpoint": "float64:-50:50"})
    rows: List[Dict[str, float]] = rule.run_batch([{"t": 20.0, "setpoint": 21.0}, {"t": 22.0, "setpoint": 21.0}])
    assert [r["result"] for r in rows] == [1.0, 0.0]

    linear = scaled(Builder())
    grads: Dict[str, float] = linear.gradients({"x": 3.0}, "y")
    assert grads == {"x": 2.0, "w": 3.0}
    assert linear.parameters == {"w": 2.0}
    frozen: Program = linear.freeze()
    assert frozen.parameters == {}
    again = Program.from_json(linear.to_json())
    assert again == linear

    b = Builder()
    total = b.state("total", 0.0, float64(min=-1e6, max=1e6))
    b.update(total, total + b.input("x"))
    runtime = Runtime(b.build({"total": total}))
    runtime.dispatch({"x": 1.5})
    outputs, state = runtime.step({"x": 2.0})
    assert runtime.steps == 1 and state["total"] == 3.5 and outputs["total"] == 1.5

    before = compile("def f(a):\n    return a * 2 + 1\n", inputs={"a": int32(min=0, max=9)})
    d: Diff = diff(before, before.optimize(), cases=[{"a": 3}])
    same_values: Optional[bool] = d.same_values
    assert same_values is True and d.summary["unchanged"] >= 1 and str(d).endswith("same values\n")

    try:
        compile("def f(a):\n    return a +\n", inputs={"a": int32()})
    except CompileError as e:
        line: Optional[int] = e.line
        assert line == 2
    else:
        raise AssertionError("a syntax error compiled")
    print("typed example ok")


if __name__ == "__main__":
    main()
