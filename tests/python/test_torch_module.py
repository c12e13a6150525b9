"""The PyTorch bridge: owned float64 parameters, the core's VJP through
autograd, training with native optimizers, state_dict, ProgramOperation,
and gradients equal to `tensorcode grad` on random programs."""
import json
import os
import random
import subprocess
import tempfile

import pytest

torch = pytest.importorskip("torch")

from conftest import CLI  # noqa: E402
from tensorcode.program import ArtifactError, Builder, EvaluationError, compile, float64, int32  # noqa: E402
from tensorcode.program.operation import ProgramOperation  # noqa: E402


def line_program():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 0.0)
    c = b.parameter("c", 0.0)
    return b.build(w * x + c)


def test_torch_parameters_are_float64_and_owned():
    model = line_program().to_tensor_module()
    params = dict(model.named_parameters())
    # One flat parameter (an optimizer step costs one tensor), per-name views.
    assert set(params) == {"weights"} and params["weights"].shape == (2,)
    assert all(p.dtype == torch.float64 and p.requires_grad for p in params.values())
    assert model.parameter("w") is model.params["w"]
    assert model.parameter("w").data_ptr() == params["weights"].data_ptr()
    assert list(model.state_dict()) == ["params.w", "params.c"]


def test_torch_adam_reaches_the_least_squares_optimum():
    torch.manual_seed(0)
    xs = [i / 4 - 2 for i in range(17)]
    ys = [2 * x - 1 + 0.1 * ((i * 7) % 5 - 2) for i, x in enumerate(xs)]
    # Closed-form least squares for y = w x + c.
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    w_opt = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    c_opt = my - w_opt * mx
    model = line_program().to_tensor_module()
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    for _ in range(200):
        opt.zero_grad()
        loss = sum((model({"x": torch.tensor(x, dtype=torch.float64)})["result"] - y) ** 2
                   for x, y in zip(xs, ys)) / n
        loss.backward()
        opt.step()
    assert float(model.parameter("w")) == pytest.approx(w_opt, abs=2e-3)
    assert float(model.parameter("c")) == pytest.approx(c_opt, abs=2e-3)
    trained = json.loads(model.artifact())
    values = {n["name"]: n["value"] for n in trained["nodes"] if n["op"] == "parameter"}
    assert values == {"w": float(model.parameter("w")), "c": float(model.parameter("c"))}


def test_torch_state_dict_round_trip():
    a = line_program().to_tensor_module()
    with torch.no_grad():
        a.parameter("w").fill_(1.25)
        a.parameter("c").fill_(-3.5)
    b = line_program().to_tensor_module()
    b.load_state_dict(a.state_dict())
    assert float(b.parameter("w")) == 1.25 and float(b.parameter("c")) == -3.5
    assert b.artifact() == a.artifact()
    x = torch.tensor(2.0, dtype=torch.float64)
    assert float(b({"x": x})["result"]) == 1.25 * 2 - 3.5


def test_torch_dotted_parameter_names_from_include():
    inner = Builder()
    a = inner.input("a")
    k = inner.parameter("k", 1.0)
    prog = inner.build(a * k)
    b = Builder()
    x = b.input("x")
    p = b.build(b.include(prog, {"a": x}, prefix="r")["result"])
    model = p.to_tensor_module()
    assert list(model.state_dict()) == ["params.r/k"]
    out = model({"x": torch.tensor(3.0, dtype=torch.float64)})["result"]
    out.backward()
    assert float(model.parameter("r.k").grad) == 3.0


def test_torch_input_gradients_and_errors():
    b = Builder(semantics="hybrid")
    x = b.input("x")
    n = b.input("n", int32(min=0, max=3))
    w = b.parameter("w", 2.0)
    p = b.build({"y": b.select(x > 1, w * x, x) + n, "z": x * x})
    model = p.to_tensor_module()
    xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    out = model({"x": xt, "n": torch.tensor(1.0)})
    (out["y"] + out["z"]).backward()
    core = p.gradients({"x": 3.0, "n": 1}, output="y")
    assert float(xt.grad) == pytest.approx(core["x"] + 6.0)
    assert float(model.parameter("w").grad) == core["w"]
    # 1-D tensors are batches (test_torch_batch.py); more dimensions are refused.
    with pytest.raises(ValueError, match=r"shape \[2, 2\].*1-D tensor \[B\]"):
        model({"x": torch.ones(2, 2, dtype=torch.float64), "n": 1})
    with pytest.raises(EvaluationError, match="'n'"):
        model({"x": xt})
    with pytest.raises(EvaluationError):
        model({"x": xt, "n": 1.5})
    with pytest.raises(TypeError):
        model([xt])
    # float32 input tensors get float32 gradients of their own shape.
    x32 = torch.tensor([3.0], dtype=torch.float32, requires_grad=True)
    model({"x": x32, "n": 0})["z"].backward()
    assert x32.grad.dtype == torch.float32 and x32.grad.shape == (1,) and float(x32.grad) == 6.0


def test_torch_program_operation():
    op = ProgramOperation(line_program().to_json())
    with torch.no_grad():
        op.parameter("w").fill_(2.0)
    out = op({"x": torch.tensor(4.0, dtype=torch.float64)})
    assert float(out["result"]) == 8.0
    out["result"].backward()
    assert float(op.parameter("w").grad) == 4.0
    assert len(list(op.parameters())) == 1  # the flat [2] parameter

    b = Builder()
    e = b.input("e", int32(min=0, max=1))
    s = b.state("s", 0, int32(min=0, max=9))
    b.update(s, s + e)
    with pytest.raises(ArtifactError, match="state"):
        ProgramOperation(b.build(s).to_json())
    c = Builder()
    y = c.input("y")
    with pytest.raises(ArtifactError, match="call"):
        ProgramOperation(c.build(c.call("f", y)))
    with pytest.raises(ArtifactError):
        ProgramOperation("{not json")


def test_torch_binding_gradients_flow():
    b = Builder()
    x = b.input("x")
    p = b.build(b.call("sq", x)).bind({"sq": (lambda v: v * v, lambda args, r: [2 * args[0]])})
    model = p.to_tensor_module()
    xt = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    model({"x": xt})["result"].backward()
    assert float(xt.grad) == 3.0


OPS = ["add", "sub", "mul", "select", "relu", "sigmoid", "affine", "lt", "gt"]


def random_program(rng, semantics):
    b = Builder(semantics=semantics, temperature=rng.choice([0.5, 1.0, 2.0]))
    x = b.input("x", float64(min=-4, max=4))
    y = b.input("y", float64(min=-4, max=4))
    w = b.parameter("w", rng.uniform(-2, 2))
    v = b.parameter("v", rng.uniform(-2, 2))
    pool = [x, y, w, v]
    for _ in range(rng.randint(3, 12)):
        op = rng.choice(OPS)
        a, c, d = (rng.choice(pool) for _ in range(3))
        if op == "add":
            n = a + c
        elif op == "sub":
            n = a - c
        elif op == "mul":
            n = a * rng.uniform(-1.5, 1.5) if rng.random() < 0.5 else a * c
        elif op == "select":
            n = b.select(a > c, d, a)
        elif op == "relu":
            n = b.relu(a)
        elif op == "sigmoid":
            n = b.sigmoid(a)
        elif op == "affine":
            n = b.affine([a, c], [rng.uniform(-1, 1), rng.uniform(-1, 1)], bias=rng.uniform(-1, 1))
        elif op == "lt":
            n = a < c
        else:
            n = a > c
        pool.append(n)
    return b.build(pool[-1] + pool[-2] * 0.5)


def cli_grad(artifact, x, y):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(artifact)
    try:
        out = subprocess.run([CLI, "grad", f.name, "--set", f"x={x!r}", "--set", f"y={y!r}"],
                             capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        return None
    return json.loads(out.stdout)


def test_torch_gradients_equal_the_cli_on_random_programs():
    rng = random.Random(1234)
    compared = 0
    for i in range(50):
        semantics = ("exact", "relaxed", "hybrid")[i % 3]
        p = random_program(rng, semantics)
        x, y = rng.uniform(-4, 4), rng.uniform(-4, 4)
        expected = cli_grad(p.to_json(), x, y)
        model = p.to_tensor_module()
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        if expected is None:
            with pytest.raises(EvaluationError):
                model({"x": xt, "y": yt})["result"].backward()
            continue
        out = model({"x": xt, "y": yt})["result"]
        assert float(out) == expected["result"], (i, semantics)
        out.backward()
        got = {"x": float(xt.grad) if xt.grad is not None else 0.0,
               "y": float(yt.grad) if yt.grad is not None else 0.0,
               "w": float(model.parameter("w").grad), "v": float(model.parameter("v").grad)}
        assert got == pytest.approx(expected["gradients"], rel=1e-12, abs=1e-300), (i, semantics)
        compared += 1
    print(f"compared {compared} of 50")
    assert compared >= 45
