"""Pickling of TensorModule and ProgramOperation (deepcopy, pickle,
torch.save) with trained values, and tensorcode.program.training.Trainer:
composition, data forms, determinism, optimizers, progress, artifacts."""
import copy
import io
import math
import pickle
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from tensorcode.program import Builder, Program  # noqa: E402
from tensorcode.program.operation import ProgramOperation  # noqa: E402
from tensorcode.program.training import Trainer  # noqa: E402


def corrected():
    """A fixed rule (10 above 4, else 12) with a learned linear correction."""
    rules = Builder()
    a = rules.input("a")
    algorithm = rules.build(rules.select(a > 4, 10, 12))
    b = Builder(semantics="hybrid")
    x = b.input("x")
    w = b.parameter("w", 0.0)
    c = b.parameter("c", 0.0)
    region = b.include(algorithm, {"a": x}, prefix="algorithm")
    return b.build(region["result"] + w * x + c)


def data(n=48):
    xs = torch.linspace(-3, 8, n, dtype=torch.float64)
    ys = torch.where(xs > 4, 10.0, 12.0) + 0.5 * xs - 0.25
    return xs, ys


def trained_op(steps=3):
    op = ProgramOperation(corrected().to_json())
    opt = torch.optim.SGD(op.parameters(), lr=0.05)
    for x in (1.0, 5.0, 7.0)[:steps]:
        opt.zero_grad()
        (op({"x": torch.tensor(x, dtype=torch.float64)})["result"] - 3.0).square().backward()
        opt.step()
    return op


def values(module):
    return {n: float(module.parameter(n)) for n in module.parameter_names}


def clones(module):
    buffer = io.BytesIO()
    torch.save(module, buffer)
    buffer.seek(0)
    return [copy.deepcopy(module), pickle.loads(pickle.dumps(module)), torch.load(buffer)]


@pytest.mark.parametrize("make", [lambda: trained_op(), lambda: trained_op().program().to_tensor_module()])
def test_torch_modules_pickle_with_their_trained_values(make):
    module = make()
    trained = values(module)
    assert trained != {"w": 0.0, "c": 0.0}
    x = torch.tensor(6.0, dtype=torch.float64)
    for clone in clones(module):
        assert type(clone) is type(module)
        assert values(clone) == trained
        # The program and the parameters agree.
        assert clone.program().parameters == trained
        assert clone.artifact() == module.artifact()
        assert float(clone({"x": x})["result"]) == float(module({"x": x})["result"])
        # The copy trains on its own and exactly like the original would.
        for m in (clone, copy.deepcopy(module)):
            opt = torch.optim.SGD(m.parameters(), lr=0.1)
            opt.zero_grad()
            m({"x": x})["result"].backward()
            opt.step()
        assert values(module) == trained
    assert Program.from_json(module.artifact()).parameters == trained


def test_torch_a_module_over_a_bound_program_refuses_to_pickle():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 1.0)
    module = b.build(b.call("f", w * x)).bind({"f": (lambda v: v, lambda args, r: [1.0])}).to_tensor_module()
    with pytest.raises(TypeError, match="host bindings cannot be pickled"):
        pickle.dumps(module)


def make_trainer(**kwargs):
    return Trainer.from_ops(ProgramOperation(corrected()), **kwargs)


def test_torch_trainer_fits_and_is_deterministic_for_a_seed():
    xs, ys = data()
    runs = []
    for _ in range(2):
        trainer = make_trainer(optimizer="adam", lr=0.05, progress=False)
        history = trainer.fit({"x": xs}, ys, epochs=6, batch_size=8, shuffle=True, seed=3)
        runs.append((history, trainer.artifacts()))
    history, artifacts = runs[0]
    assert runs[1] == runs[0]  # same bits
    assert len(history["loss"]) == 6
    assert history["loss"][-1] < history["loss"][0] / 4
    trained = Program.from_json(artifacts[0]).parameters
    assert trained["w"] == pytest.approx(0.5, abs=0.15)
    other = make_trainer(optimizer="adam", lr=0.05, progress=False)
    assert other.fit({"x": xs}, ys, epochs=6, batch_size=8, shuffle=True, seed=4) != history


def test_torch_trainer_takes_numpy_columns_and_a_dataloader():
    xs, ys = data()
    reference = make_trainer(optimizer="sgd", lr=0.01, progress=False)
    expected = reference.fit({"x": xs}, ys, epochs=3, batch_size=12, shuffle=False)
    numpy_run = make_trainer(optimizer="sgd", lr=0.01, progress=False)
    assert numpy_run.fit({"x": xs.numpy()}, ys.numpy(), epochs=3, batch_size=12, shuffle=False) == expected
    assert numpy_run.artifacts() == reference.artifacts()

    class Cases(torch.utils.data.Dataset):
        def __len__(self):
            return len(xs)

        def __getitem__(self, i):
            return {"x": xs[i]}, ys[i]

    loader = torch.utils.data.DataLoader(Cases(), batch_size=12, shuffle=False)
    loader_run = make_trainer(optimizer="sgd", lr=0.01, progress=False)
    assert loader_run.fit(loader, epochs=3) == expected
    assert loader_run.artifacts() == reference.artifacts()
    with pytest.raises(ValueError, match="DataLoader yields its own targets"):
        loader_run.fit(loader, ys)


def test_torch_trainer_composes_ops_and_a_float32_module_by_forward():
    torch.manual_seed(0)
    xs, ys = data(32)
    scale = torch.nn.Linear(1, 1).float()  # a float32 module feeding the bridge
    rule = ProgramOperation(corrected())

    def forward(inputs):
        x = scale(inputs["x"].float().unsqueeze(1)).squeeze(1)
        return rule({"x": x})["result"]

    trainer = Trainer.from_ops(rule, modules=[scale], forward=forward, optimizer=torch.optim.Adam, lr=0.02,
                               progress=False)
    before = [p.detach().clone() for p in scale.parameters()]
    history = trainer.fit({"x": xs}, ys, epochs=4, batch_size=16, seed=0)
    assert all(math.isfinite(v) for v in history["loss"])
    assert any(not torch.equal(a, p) for a, p in zip(before, scale.parameters()))
    assert values(rule) != {"w": 0.0, "c": 0.0}
    assert trainer.artifacts() == [rule.artifact()]
    with pytest.raises(ValueError, match="forward="):
        Trainer.from_ops([rule, ProgramOperation(corrected())])


def test_torch_trainer_optimizer_and_loss_choices():
    xs, ys = data(16)
    op = ProgramOperation(corrected())
    opt = torch.optim.SGD(op.parameters(), lr=0.01, momentum=0.5)
    trainer = Trainer.from_ops(op, optimizer=opt, loss="l1", progress=False)
    assert trainer.optimizer is opt
    trainer.fit({"x": xs}, ys, epochs=1, batch_size=16)
    assert values(op) != {"w": 0.0, "c": 0.0}
    custom = make_trainer(loss=lambda p, t: ((p - t) ** 4).mean(), optimizer="rmsprop", lr=0.001, progress=False)
    assert len(custom.fit({"x": xs}, ys, epochs=2, batch_size=4)["loss"]) == 2
    with pytest.raises(ValueError, match="unknown optimizer 'lbfgs'"):
        make_trainer(optimizer="lbfgs")
    with pytest.raises(ValueError, match="unknown loss"):
        make_trainer(loss="hinge")
    with pytest.raises(TypeError, match="ProgramOperations"):
        Trainer.from_ops(torch.nn.Linear(1, 1))
    foreign = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=0.1)
    with pytest.raises(ValueError, match="not the operations'"):
        make_trainer(optimizer=foreign)
    with pytest.raises(ValueError, match="different lengths"):
        make_trainer().fit({"x": xs}, ys[:-1])


def test_torch_trainer_progress_is_silent_off_a_terminal(capsys, monkeypatch):
    xs, ys = data(8)
    make_trainer().fit({"x": xs}, ys, epochs=2, batch_size=4)  # progress=None, stderr is captured: no bar
    assert capsys.readouterr().err == ""
    monkeypatch.setitem(sys.modules, "tqdm", None)  # tqdm not installed: a plain line instead
    make_trainer(progress=True).fit({"x": xs}, ys, epochs=2, batch_size=4)
    err = capsys.readouterr().err
    assert "epoch 2" in err and "loss" in err


def test_torch_trainer_progress_draws_a_tqdm_bar(capsys):
    # Debian's python3-tqdm is a test dependency: without it this test fails
    # (it is the path users with tqdm take, not a pass by skipping).
    import tqdm  # noqa: F401
    xs, ys = data(8)
    make_trainer(progress=True).fit({"x": xs}, ys, epochs=2, batch_size=4)
    err = capsys.readouterr().err
    # tqdm's bar (leave=False: cleared at the end, and refreshed at most ten
    # times a second, so only its first frame is sure), not the plain line.
    assert "0/4 [" in err and "batch/s" in err and "epoch 2  loss" not in err, err


def test_torch_trainer_refuses_an_empty_dataloader_like_empty_columns():
    # issue 37: an empty DataLoader gave {'loss': [nan, nan]}.
    empty = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.zeros(0)), batch_size=4)
    with pytest.raises(ValueError, match="^fit\\(\\) needs at least one case$"):
        make_trainer(progress=False).fit({"x": torch.zeros(0)}, torch.zeros(0), epochs=2)
    with pytest.raises(ValueError, match="^fit\\(\\) needs at least one case$"):
        make_trainer(progress=False).fit(empty, epochs=2)

    def nothing():
        return iter(())

    class Empty(torch.utils.data.IterableDataset):
        def __iter__(self):
            return nothing()

    with pytest.raises(ValueError, match="^fit\\(\\) needs at least one case$"):
        make_trainer(progress=False).fit(torch.utils.data.DataLoader(Empty(), batch_size=None), epochs=2)


def divides():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 1.0)
    return b.build(w * 2.0 / x)  # fails where x == 0


def test_torch_trainer_with_errors_nan_leaves_failed_cases_out_of_the_loss():
    # issue 37: with the built-in losses every epoch's loss was [nan, nan]
    # and the steps were NaN: the failed cases must be left out as the
    # bridge leaves them out of the parameter sums.
    xs = torch.tensor([1.0, 2.0, 0.0, 4.0, 0.0, 8.0], dtype=torch.float64)
    ys = 6.0 / xs.where(xs != 0, torch.ones_like(xs))
    nan_op = ProgramOperation(divides(), errors="nan")
    trainer = Trainer.from_ops(nan_op, loss="mse", optimizer="sgd", lr=0.05, progress=False)
    history = trainer.fit({"x": xs}, ys, epochs=2, batch_size=3, shuffle=False)
    assert all(math.isfinite(v) for v in history["loss"])
    # The same steps as training on the cases that work, batch by batch.
    ok = xs != 0
    clean = ProgramOperation(divides())
    sgd = torch.optim.SGD(clean.parameters(), lr=0.05)
    for _ in range(2):
        for b in range(2):
            part = slice(3 * b, 3 * b + 3)
            keep = ok[part]
            sgd.zero_grad()
            prediction = clean({"x": xs[part][keep]})["result"]
            torch.nn.functional.mse_loss(prediction, ys[part][keep]).backward()
            sgd.step()
    assert values(nan_op) == values(clean)
    # A batch whose every case fails takes no step.
    lost = ProgramOperation(divides(), errors="nan")
    zeros = torch.zeros(4, dtype=torch.float64)
    assert math.isnan(Trainer.from_ops(lost, optimizer="sgd", progress=False)
                      .fit({"x": zeros}, zeros, epochs=1)["loss"][0])
    assert values(lost) == {"w": 1.0}


def test_torch_trainer_a_nan_target_names_the_seed_and_the_data_row():
    # issue 37: a NaN target gave "the gradient with respect to input 'x' is
    # nan" (x needs no gradient) at the position in the shuffled batch.
    xs = torch.linspace(1, 2, 10, dtype=torch.float64)
    ys = 3.0 * xs
    ys[6] = float("nan")
    trainer = Trainer.from_ops(ProgramOperation(divides()), optimizer="sgd", progress=False)
    from tensorcode.program import EvaluationError
    with pytest.raises(EvaluationError) as info:
        trainer.fit({"x": xs}, ys, epochs=1, batch_size=10, shuffle=True, seed=1)
    e = info.value
    assert e.row == 6 and e.case != 6  # shuffled: the batch position differs from the row
    assert "data row 6: the incoming gradient (the seed) of output 'result' is nan" in str(e), str(e)
    assert e.message.startswith("data row 6: the incoming gradient (the seed) of output 'result' is nan")
    assert "input 'x'" not in str(e)


def test_torch_trainer_picks_outputs_by_name():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 0.0)
    v = b.parameter("v", 0.0)
    program = b.build({"result": w * x, "other": v * x})
    xs = torch.linspace(-1, 1, 16, dtype=torch.float64)
    both = Trainer.from_ops(ProgramOperation(program), optimizer="sgd", lr=0.5, progress=False)
    both.fit({"x": xs}, {"result": 2 * xs, "other": -xs}, epochs=60, batch_size=None)
    trained = Program.from_json(both.artifacts()[0]).parameters
    assert trained["w"] == pytest.approx(2.0, abs=1e-3) and trained["v"] == pytest.approx(-1.0, abs=1e-3)
    one = Trainer.from_ops(ProgramOperation(program), output="other", optimizer="sgd", lr=0.5, progress=False)
    one.fit({"x": xs}, 3 * xs, epochs=60, batch_size=None)
    trained = Program.from_json(one.artifacts()[0]).parameters
    assert trained["w"] == 0.0 and trained["v"] == pytest.approx(3.0, abs=1e-3)
    with pytest.raises(ValueError, match="give targets as a dict by output name, or output="):
        Trainer.from_ops(ProgramOperation(program), progress=False).fit({"x": xs}, xs)
