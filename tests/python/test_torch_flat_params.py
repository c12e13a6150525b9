"""The bridge's parameter layout (issue 35): one flat nn.Parameter `weights`
with per-name views, state_dict keys of the per-name layout (old saved
dicts load), gradients equal to the core's per-parameter sums, and float32
programs with float32 parameters."""
import io
import pickle
import struct

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from tensorcode.program import Builder  # noqa: E402


def bits(v):
    return struct.pack("<d", float(v))


def program(dtype="float64"):
    b = Builder(dtype=dtype)
    x = b.input("x")
    y = b.input("y")
    w = b.parameter("w", 0.5)
    c = b.parameter("c", -0.25)
    v = b.parameter("v", 2.0)
    return b.build(b.select(x > 0.0, w * x * y + c, v * y - w))


def columns(n=300, seed=3):
    rng = np.random.default_rng(seed)
    return {"x": rng.uniform(-2, 2, n), "y": rng.uniform(-3, 3, n)}


def test_old_per_name_state_dict_loads():
    # What state_dict() wrote before the flat layout: one 0-d float64 tensor per name.
    old = {"params.w": torch.tensor(1.25, dtype=torch.float64), "params.c": torch.tensor(-3.5, dtype=torch.float64),
           "params.v": torch.tensor(0.75, dtype=torch.float64)}
    model = program().to_tensor_module()
    assert model.load_state_dict(old) is not None
    assert model.weights.tolist() == [1.25, -3.5, 0.75]
    assert float(model.parameter("c")) == -3.5
    # The keys state_dict() writes are still the per-name ones, in program order.
    assert list(model.state_dict()) == ["params.w", "params.c", "params.v"]
    # Through torch.save / torch.load as a user would have stored it.
    buffer = io.BytesIO()
    torch.save(old, buffer)
    buffer.seek(0)
    fresh = program().to_tensor_module()
    fresh.load_state_dict(torch.load(buffer))
    assert fresh.weights.tolist() == [1.25, -3.5, 0.75]
    # A missing name is reported by its own key, and strict=False keeps its value.
    with pytest.raises(RuntimeError, match=r"Missing key\(s\) in state_dict: \"params.v\""):
        program().to_tensor_module().load_state_dict({"params.w": old["params.w"], "params.c": old["params.c"]})
    partial = program().to_tensor_module()
    partial.load_state_dict({"params.w": old["params.w"]}, strict=False)
    assert partial.weights.tolist() == [1.25, -0.25, 2.0]
    with pytest.raises(RuntimeError, match="size mismatch for params.w"):
        program().to_tensor_module().load_state_dict(dict(old, **{"params.w": torch.zeros(2)}))


def test_state_dict_inside_a_larger_model():
    net = torch.nn.Sequential(torch.nn.Linear(1, 1), program().to_tensor_module())
    keys = list(net.state_dict())
    assert keys == ["0.weight", "0.bias", "1.params.w", "1.params.c", "1.params.v"]
    other = torch.nn.Sequential(torch.nn.Linear(1, 1), program().to_tensor_module())
    with torch.no_grad():
        net[1].parameter("v").fill_(-1.0)
    other.load_state_dict(net.state_dict())
    assert float(other[1].parameter("v")) == -1.0


def test_gradients_match_the_per_parameter_sums():
    prog = program()
    model = prog.to_tensor_module()
    cols = columns()
    seeds = np.random.default_rng(5).uniform(-1, 1, 300)
    out = model({k: torch.from_numpy(v) for k, v in cols.items()})["result"]
    out.backward(torch.from_numpy(seeds))
    core = prog.gradients_batch(cols, seeds=seeds)["parameters"]
    # Each coefficient's gradient: the core's sum over the cases, bit for bit,
    # read through the flat gradient and through each view alike.
    assert [bits(g) for g in model.weights.grad] == [bits(core[n]) for n in model.parameter_names]
    assert [bits(model.parameter(n).grad) for n in model.parameter_names] == \
        [bits(core[n]) for n in model.parameter_names]


def test_a_gradient_through_a_view_reaches_the_flat_parameter():
    model = program().to_tensor_module()
    cols = {k: torch.from_numpy(v) for k, v in columns(40).items()}
    model(cols)["result"].sum().backward()
    plain = model.weights.grad.clone()
    model.zero_grad()
    # A penalty on one coefficient, written with its view.
    (model(cols)["result"].sum() + 3.0 * model.parameter("v")).backward()
    assert model.weights.grad.tolist() == [plain[0].item(), plain[1].item(), plain[2].item() + 3.0]
    # Setting one view's gradient to None zeroes its element only.
    model.parameter("c").grad = None
    assert model.weights.grad[1].item() == 0.0 and model.weights.grad[2].item() == plain[2].item() + 3.0


def test_one_optimizer_tensor_and_values_seen_through_the_views():
    model = program().to_tensor_module()
    opt = torch.optim.Adam(model.parameters(), lr=0.1)
    assert sum(len(g["params"]) for g in opt.param_groups) == 1
    w = model.parameter("w")
    cols = {k: torch.from_numpy(v) for k, v in columns(64).items()}
    for _ in range(3):
        opt.zero_grad()
        (model(cols)["result"] ** 2).mean().backward()
        opt.step()
    assert float(w) == model.weights[0].item() != 0.5
    assert model.program().parameters == dict(zip(model.parameter_names, model.weights.tolist()))


def test_float32_program_has_float32_parameters():
    prog32 = program("float32")
    model = prog32.to_tensor_module()
    assert model.weights.dtype == torch.float32
    assert model.parameter("w").dtype == torch.float32
    cols = {k: torch.from_numpy(v).float() for k, v in columns(64).items()}
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    for _ in range(3):
        opt.zero_grad()
        out = model(cols)["result"]
        assert out.dtype == torch.float32
        (out ** 2).mean().backward()
        assert model.weights.grad.dtype == torch.float32
        opt.step()
    assert model.weights.dtype == torch.float32
    assert all(v.dtype == torch.float32 for v in model.state_dict().values())
    # A float64 state dict (the per-name layout always saved float64) loads into it.
    model.load_state_dict({"params.w": torch.tensor(0.125, dtype=torch.float64),
                           "params.c": torch.tensor(1.0, dtype=torch.float64),
                           "params.v": torch.tensor(-2.0, dtype=torch.float64)})
    assert model.weights.dtype == torch.float32 and model.weights.tolist() == [0.125, 1.0, -2.0]
    # float64 programs keep float64.
    assert program().to_tensor_module().weights.dtype == torch.float64


def test_pickle_and_deepcopy_keep_the_flat_parameter():
    import copy
    model = program().to_tensor_module()
    with torch.no_grad():
        model.parameter("w").fill_(4.0)
    for clone in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert clone.weights.tolist() == [4.0, -0.25, 2.0]
        assert float(clone.parameter("w")) == 4.0
        with torch.no_grad():
            clone.parameter("w").fill_(1.0)
        assert clone.weights[0].item() == 1.0 and model.weights[0].item() == 4.0


def test_a_module_pickled_with_the_per_name_layout_loads():
    from tensorcode.program.torch_module import TensorModule
    model = program().to_tensor_module()
    # The __dict__ a module had before the flat layout: a ParameterDict of
    # 0-d float64 parameters under _modules["params"], no flat weights.
    state = model.__getstate__()
    for name in ("_count", "_pending", "_views"):
        state.pop(name)
    state["_parameters"] = type(state["_parameters"])()
    state["_modules"] = type(state["_modules"])(params=torch.nn.ParameterDict(
        {"w": torch.nn.Parameter(torch.tensor(1.5, dtype=torch.float64)),
         "c": torch.nn.Parameter(torch.tensor(-1.0, dtype=torch.float64)),
         "v": torch.nn.Parameter(torch.tensor(0.25, dtype=torch.float64))}))
    old = TensorModule.__new__(TensorModule)
    old.__setstate__(state)
    assert [n for n, _ in old.named_parameters()] == ["weights"]
    assert old.weights.tolist() == [1.5, -1.0, 0.25] and float(old.parameter("c")) == -1.0
    out = old({"x": torch.tensor([1.0, -1.0], dtype=torch.float64), "y": 2.0})["result"]
    assert out.tolist() == [1.5 * 2.0 - 1.0, 0.25 * 2.0 - 1.5]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_the_fast_column_call_equals_the_general_one(dtype):
    # Columns without grad of one dtype take the fast path; the same columns
    # with requires_grad (or a length-1 column beside them) the general one.
    tdtype = torch.float64 if dtype == "float64" else torch.float32
    cols = {k: torch.from_numpy(v).to(tdtype) for k, v in columns(70).items()}
    seeds = torch.linspace(-1, 1, 70, dtype=tdtype)
    got = []
    for variant in ("fast", "grad", "shared"):
        model = program(dtype).to_tensor_module()
        ins = dict(cols)
        if variant == "grad":
            ins["x"] = ins["x"].clone().requires_grad_(True)
        out = model(ins)["result"]
        if variant == "shared":  # y's first value for every case, through the general path
            out = model({"x": cols["x"], "y": cols["y"][:1]})["result"]
            ref = model({"x": cols["x"], "y": cols["y"][0].expand(70).contiguous()})["result"]
            assert out.tolist() == ref.tolist()
            continue
        out.backward(seeds)
        assert out.dtype == tdtype and model.weights.grad.dtype == tdtype
        got.append((out.tolist(), model.weights.grad.tolist()))
    assert got[0] == got[1]


def test_a_record_is_freed_only_after_a_backward_that_did_not_retain_it():
    model = program().to_tensor_module()
    cols = {k: torch.from_numpy(v) for k, v in columns(64).items()}
    kept = model(cols)["result"].sum()
    kept.backward(retain_graph=True)
    first = model.weights.grad.clone()
    for _ in range(3):  # later calls must not take the retained record
        model.zero_grad()
        (model(cols)["result"] * 2.0).sum().backward()
    model.zero_grad()
    kept.backward()
    assert model.weights.grad.tolist() == first.tolist()
    spent = model(cols)["result"].sum()
    spent.backward()
    model(cols)  # frees spent's record
    with pytest.raises(RuntimeError, match="second time"):
        spent.backward()


def test_the_fast_call_masks_failing_cases():
    b = Builder()
    x = b.input("x")
    y = b.input("y")
    w = b.parameter("w", 1.5)
    model = b.build(w * x / y).to_tensor_module(errors="nan")
    xs = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)  # no grad: the fast path
    ys = torch.tensor([1.0, 2.0, 0.0, 4.0], dtype=torch.float64)  # case 2 divides by zero
    out = model({"x": xs, "y": ys})["result"]
    assert torch.isnan(out[2]) and out[[0, 1, 3]].tolist() == [1.5, 1.5, 1.5]
    out[torch.isfinite(out)].sum().backward()
    assert model.weights.grad.tolist() == [1.0 + 1.0 + 1.0]  # case 2 left out
    with pytest.raises(Exception, match="case 2"):
        b2 = Builder()
        x2, y2 = b2.input("x"), b2.input("y")
        b2.build(b2.parameter("w", 1.5) * x2 / y2).to_tensor_module()({"x": xs, "y": ys})
