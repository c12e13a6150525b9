"""The batched PyTorch bridge and Program.gradients_batch: 1-D tensors [B]
per input evaluated and differentiated by the core in one call each way,
equal bit for bit to the per-case results; dtypes, errors and masking;
backward without a second forward; second derivatives refused (issue 23,
defect 2)."""
import math
import random
import struct

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from test_torch_module import random_program  # noqa: E402
from tensorcode.program import Builder, EvaluationError, compile, float64, int32  # noqa: E402
from tensorcode.program.operation import ProgramOperation  # noqa: E402


def bits(v):
    return struct.pack("<d", float(v))


def division_program():
    """result = w * x / y: fails where y == 0."""
    b = Builder()
    x = b.input("x")
    y = b.input("y")
    w = b.parameter("w", 1.5)
    return b.build(w * x / y)


def test_torch_batch_equals_per_case_bit_for_bit_on_random_programs():
    rng = random.Random(99)
    compared = failing = 0
    for i in range(30):
        semantics = ("exact", "relaxed", "hybrid")[i % 3]
        p = random_program(rng, semantics)
        xs = [rng.uniform(-4, 4) for _ in range(12)]
        ys = [rng.uniform(-4, 4) for _ in range(12)]
        ys[3] = xs[3]  # comparisons on a boundary
        want = []
        for x, y in zip(xs, ys):
            try:
                value = p.run({"x": x, "y": y})["result"]
                want.append((value, p.gradients({"x": x, "y": y})))
            except EvaluationError:
                want.append(None)
        for threads in (1, 2):
            model = p.to_tensor_module(errors="nan", threads=threads)
            xt = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
            yt = torch.tensor(ys, dtype=torch.float64, requires_grad=True)
            out = model({"x": xt, "y": yt})["result"]
            assert out.shape == (12,)
            out.backward(torch.ones(12, dtype=torch.float64))
            w_sum = v_sum = 0.0
            for c, w in enumerate(want):
                if w is None:
                    assert math.isnan(out[c]) and xt.grad[c] == 0 and yt.grad[c] == 0
                    failing += threads == 1
                    continue
                value, grads = w
                assert bits(out[c]) == bits(value), (i, c)
                assert bits(xt.grad[c]) == bits(grads.get("x", 0.0)), (i, c)
                assert bits(yt.grad[c]) == bits(grads.get("y", 0.0)), (i, c)
                w_sum += grads["w"]
                v_sum += grads["v"]
                compared += threads == 1
            # Parameter gradients: summed in case order, whatever the thread count.
            assert bits(model.parameter("w").grad) == bits(w_sum)
            assert bits(model.parameter("v").grad) == bits(v_sum)
    assert compared > 300


def test_torch_gradients_batch_without_torch():
    p = division_program()
    x = np.array([1.0, 2.0, -3.0, 4.0])
    y = np.array([2.0, 0.5, 4.0, -8.0])
    r = p.gradients_batch({"x": x, "y": y})
    assert r["failed"] == []
    w_sum = 0.0
    for c in range(4):
        one = p.gradients({"x": x[c], "y": y[c]})
        assert bits(r["value"][c]) == bits(p.run({"x": x[c], "y": y[c]})["result"])
        assert bits(r["inputs"]["x"][c]) == bits(one["x"]) and bits(r["inputs"]["y"][c]) == bits(one["y"])
        w_sum += one["w"]
    assert bits(r["parameters"]["w"]) == bits(w_sum)
    # Seeds weight each case; a number is shared by every case.
    r2 = p.gradients_batch({"x": x, "y": 2.0}, seeds=np.array([1.0, 0.0, 2.0, 0.5]))
    assert list(r2["inputs"]["x"]) == [1.5 / 2.0 * 1.0, 0.0, 1.5 / 2.0 * 2.0, 1.5 / 2.0 * 0.5]
    y[2] = 0.0
    with pytest.raises(EvaluationError, match=r"^case 2: .*division by zero") as e:
        p.gradients_batch({"x": x, "y": y})
    assert e.value.case == 2
    masked = p.gradients_batch({"x": x, "y": y}, errors="nan")
    assert masked["failed"] == [2] and math.isnan(masked["value"][2]) and masked["inputs"]["x"][2] == 0.0
    assert bits(masked["parameters"]["w"]) == bits(sum(p.gradients({"x": x[c], "y": y[c]})["w"] for c in (0, 1, 3)))
    with pytest.raises(EvaluationError, match="no output 'nope'"):
        p.gradients_batch({"x": x, "y": y}, output="nope")
    with pytest.raises(ValueError, match="input 'y' has 3 values"):
        p.gradients_batch({"x": x, "y": y[:3]})


def test_torch_seed_and_input_layouts_keep_the_bits():
    # The bridge hands torch's tensors to the core as they come: an expanded
    # seed (stride 0, the backward of sum()) is read as one value, a strided
    # seed or input column is copied, inputs that need no gradient get none.
    # Every way gives the bits of contiguous columns and an explicit seed.
    rng = random.Random(5)
    for i in range(6):
        p = random_program(rng, ("exact", "relaxed", "hybrid")[i % 3])
        model = p.to_tensor_module(errors="nan")
        xs = torch.tensor([rng.uniform(-4, 4) for _ in range(40)], dtype=torch.float64)
        ys = torch.tensor([rng.uniform(-4, 4) for _ in range(40)], dtype=torch.float64)

        def run(x, y, backward, wants_y=True):
            x = x.clone().requires_grad_(True) if x.is_contiguous() else x.requires_grad_(True)
            y = y.clone().requires_grad_(wants_y) if y.is_contiguous() else y.requires_grad_(wants_y)
            for w in model.parameters():  # the one flat parameter
                w.grad = None
            out = model({"x": x, "y": y})["result"]
            backward(out)
            grad_y = y.grad if y.is_leaf else None
            return ([bits(v) for v in out.tolist()], [bits(v) for v in x.grad.tolist()],
                    None if grad_y is None else [bits(v) for v in grad_y.tolist()],
                    [bits(model.parameter(n).grad) for n in model.parameter_names])

        want = run(xs, ys, lambda out: out.backward(torch.full((40,), 3.0, dtype=torch.float64)))
        assert run(xs, ys, lambda out: (out.sum() * 3.0).backward()) == want  # seed 3.0, stride 0
        ones = run(xs, ys, lambda out: out.backward(torch.ones(40, dtype=torch.float64)))
        assert run(xs, ys, lambda out: out.sum().backward()) == ones
        strided_seed = torch.full((80,), 3.0, dtype=torch.float64)[::2]
        assert run(xs, ys, lambda out: out.backward(strided_seed)) == want
        # Strided input columns (views of every other element, leaves of their own).
        wide_x = torch.zeros(80, dtype=torch.float64)
        wide_y = torch.zeros(80, dtype=torch.float64)
        wide_x[::2], wide_y[::2] = xs, ys
        assert run(wide_x.clone()[::2].detach(), wide_y.clone()[::2].detach(), lambda out: out.sum().backward()) == ones
        # y without requires_grad: no gradient for it, x's and the parameters' bits unchanged.
        no_y = run(xs, ys, lambda out: out.sum().backward(), wants_y=False)
        assert no_y[2] is None and (no_y[0], no_y[1], no_y[3]) == (ones[0], ones[1], ones[3])


def test_torch_backward_twice_needs_retain_graph():
    p = division_program()
    model = p.to_tensor_module()
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    loss = model({"x": x, "y": 2.0})["result"].sum()
    loss.backward(retain_graph=True)
    loss.backward()  # the record is kept while the graph is
    assert x.grad.tolist() == [1.5, 1.5]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_torch_batch_shapes_broadcast_and_program_operation():
    p = division_program()
    op = ProgramOperation(p.to_json())
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)  # shared by every case
    out = op({"x": x, "y": y})["result"]
    assert out.shape == (3,) and out.dtype == torch.float64
    assert out.tolist() == [0.75, 1.5, 2.25]
    out.sum().backward()
    assert x.grad.tolist() == [0.75] * 3
    per_case = [-1.5 * xv / 4.0 for xv in (1.0, 2.0, 3.0)]
    assert y.grad.shape == () and bits(y.grad) == bits(per_case[0] + per_case[1] + per_case[2])
    assert float(op.parameter("w").grad) == (1 + 2 + 3) / 2.0
    # Numbers broadcast too; 0-d only: 0-d outputs (the scalar behaviour).
    s = op({"x": torch.tensor(4.0, dtype=torch.float64), "y": 2})["result"]
    assert s.shape == () and float(s) == 3.0
    one = op({"x": torch.tensor([4.0], dtype=torch.float64), "y": 2})["result"]
    assert one.shape == (1,)
    with pytest.raises(ValueError, match="input 'y' has 2 cases but input 'x' has 3"):
        op({"x": x, "y": torch.ones(2, dtype=torch.float64)})


def test_torch_float32_model_feeds_the_bridge_and_trains():
    torch.manual_seed(0)
    b = Builder()
    a = b.input("a")
    k = b.parameter("k", 0.5)
    rule = b.build(b.select(a > 0, a * k, a * 0.1))
    bridge = rule.to_tensor_module()
    linear = torch.nn.Linear(3, 1)  # float32
    data = torch.randn(64, 3)
    target = (data @ torch.tensor([1.0, -2.0, 0.5])).relu() * 1.7
    opt = torch.optim.Adam(list(linear.parameters()) + list(bridge.parameters()), lr=0.05)
    losses = []
    for _ in range(60):
        opt.zero_grad()
        out = bridge({"a": linear(data).reshape(-1)})["result"]
        assert out.dtype == torch.float32 and out.shape == (64,)
        loss = ((out - target) ** 2).mean()
        loss.backward()
        assert linear.weight.grad.dtype == torch.float32
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.2 * losses[0]


def test_torch_batch_input_errors_say_what_to_do():
    b = Builder()
    x = b.input("x")
    n = b.input("n", int32(min=0, max=5))
    model = b.build(x * n).to_tensor_module()
    with pytest.raises(ValueError, match=r"input 'x' has shape \[2, 3\]: give a 1-D tensor \[B\].*reshape\(-1\)"):
        model({"x": torch.ones(2, 3, dtype=torch.float64), "n": 1})
    with pytest.raises(TypeError, match=r"input 'x' is an integer tensor \(torch.int64\).*\.double\(\)"):
        model({"x": torch.tensor([1, 2]), "n": 1})
    with pytest.raises(ValueError, match=r"input 'x' is on meta.*\.cpu\(\)"):
        model({"x": torch.empty(2, device="meta"), "n": 1})
    # An integer tensor is fine for an integer input.
    out = model({"x": torch.tensor([1.5, 2.5], dtype=torch.float64), "n": torch.tensor([2, 3])})["result"]
    assert out.tolist() == [3.0, 7.5]
    with pytest.raises(EvaluationError, match="missing input 'n'"):
        model({"x": torch.ones(2, dtype=torch.float64)})
    with pytest.raises(EvaluationError, match="unknown input 'q'"):
        model({"x": 1.0, "n": 1, "q": 2.0})


def test_torch_failing_case_is_named_or_masked():
    p = division_program()
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([1.0, 2.0, 0.0, 4.0], dtype=torch.float64)
    model = p.to_tensor_module()
    with pytest.raises(EvaluationError, match=r"^case 2: .*division by zero") as e:
        model({"x": x, "y": y})
    assert e.value.case == 2 and e.value.node is not None
    masked = p.to_tensor_module(errors="nan")
    out = masked({"x": x, "y": y})["result"]
    assert math.isnan(out[2]) and out[0] == 1.5
    out[torch.isfinite(out)].sum().backward()
    assert x.grad.tolist() == [1.5, 0.75, 0.0, 0.375]
    assert float(masked.parameter("w").grad) == 1.0 + 1.0 + 1.0  # case 2 left out
    # A scalar call keeps today's message (no case prefix).
    with pytest.raises(EvaluationError, match="^node") as e:
        model({"x": 1.0, "y": 0.0})


def test_torch_backward_does_not_run_the_forward_again():
    calls = []

    def square(v):
        calls.append(v)
        return v * v

    b = Builder()
    x = b.input("x")
    p = b.build(b.call("sq", x) + x).bind({"sq": (square, lambda args, r: [2 * args[0]])})
    model = p.to_tensor_module()
    xt = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    out = model({"x": xt})["result"]
    out.sum().backward()
    assert calls == [1.0, 2.0, 3.0]  # the forward's calls only
    assert xt.grad.tolist() == [3.0, 5.0, 7.0]
    with pytest.raises(ValueError, match="one thread"):
        p.to_tensor_module(threads=2)({"x": xt})


def test_torch_second_derivatives_are_refused_not_wrong():
    # Issue 23, defect 2: the circuit's part of a second derivative was
    # silently dropped (18 at x=3 instead of 20 for x*x + x**3).
    p = compile("def f(x):\n    return x * x\n", {"x": float64()})
    model = p.to_tensor_module()
    x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    y = model({"x": x})["result"] + x ** 3
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    assert float(g) == 33.0
    with pytest.raises(RuntimeError, match="first derivatives only"):
        torch.autograd.grad(g, x)
    # The same with a seed that itself requires grad (the case that
    # torch.autograd.function.once_differentiable alone catches).
    y = model({"x": x})["result"]
    (g,) = torch.autograd.grad(y, x, grad_outputs=torch.tensor(1.0, dtype=torch.float64, requires_grad=True),
                               create_graph=True)
    with pytest.raises(RuntimeError, match="first derivatives only"):
        g.backward()
    # First derivatives with create_graph keep working for the other terms.
    x2 = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (g2,) = torch.autograd.grad(model({"x": x2})["result"].sum(), x2, create_graph=True)
    assert g2.tolist() == [2.0, 4.0]
