"""The description's torch examples, verbatim, and the learned correction's
known numbers: one SGD step moves 10 to 10.5 and correction to 0.1."""
import json

import pytest

torch = pytest.importorskip("torch")


def test_torch_builder_module():
    from tensorcode.program import Builder, Runtime, Program, float64  # noqa: F401
    b = Builder(semantics="hybrid", surrogate="sigmoid")
    x = b.input("x", float64())
    w = b.parameter("weight", 0.0)
    p = b.build(b.select(x > 4, w * x, 0))
    p.run({"x": 5})
    p.gradients({"x": 5})
    model = p.to_tensor_module()  # imports optional torch only here
    assert isinstance(model, torch.nn.Module)


def test_torch_learned_correction():
    import torch
    from tensorcode.program import Builder
    rules = Builder()
    a = rules.input("a")
    algorithm = rules.build(rules.select(a > 4, 10, 12))
    b = Builder()
    x = b.input("x")
    correction = b.parameter("correction", 0.0)
    region = b.include(algorithm, {"a": x}, prefix="algorithm")
    program = b.build(region["result"] + correction * x)
    model = program.to_tensor_module()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    optimizer.zero_grad()
    output = model({"x": torch.tensor(5.0, dtype=torch.float64)})["result"]
    (output - 11).square().backward()
    optimizer.step()
    trained_artifact = model.artifact()

    assert float(output) == 10.0
    after = model({"x": torch.tensor(5.0, dtype=torch.float64)})["result"]
    assert float(after) == pytest.approx(10.5, abs=1e-12)
    nodes = json.loads(trained_artifact)["nodes"]
    (param,) = [n for n in nodes if n["op"] == "parameter"]
    assert param["name"] == "correction" and param["value"] == pytest.approx(0.1, abs=1e-15)
    # The trained artifact runs the same in the core.
    from tensorcode.program import Program
    assert Program.from_json(trained_artifact).run({"x": 5})["result"] == pytest.approx(10.5, abs=1e-12)
