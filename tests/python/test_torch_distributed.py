"""Trainer(distributed=True) under torch.distributed: two processes on
localhost (gloo, DistributedDataParallel, torch.multiprocessing spawn) train
to the parameters one process reaches on the full batch, within the bound
docs/python.md states (the per-process sums are added in another order).
ctest runs this file as python.torch_distributed, SKIPPED without gloo."""
import json
import os
import socket

import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
if not (dist.is_available() and dist.is_gloo_available()):
    pytest.skip("torch.distributed has no gloo backend", allow_module_level=True)

from tensorcode.program import Builder, Program  # noqa: E402
from tensorcode.program.operation import ProgramOperation  # noqa: E402
from tensorcode.program.training import Trainer  # noqa: E402

EPOCHS = 6
# The documented bound: |distributed - single| <= 1e-12 * max(1, |single|) per parameter.
BOUND = 1e-12


def artifact():
    b = Builder(semantics="hybrid")
    x = b.input("x")
    w = b.parameter("w", 0.25)
    c = b.parameter("c", -0.5)
    return b.build(b.select(x > 1, w * x, c * x) + c * w).to_json()


def data():
    xs = torch.linspace(-2, 3, 30, dtype=torch.float64)
    ys = 0.7 * xs - 0.3 + torch.sin(3 * xs) * 0.1
    return xs, ys


def train(distributed, batch_size):
    trainer = Trainer.from_ops(ProgramOperation(artifact()), optimizer="sgd", lr=0.2, distributed=distributed,
                               progress=False)
    xs, ys = data()
    # batch_size=None: every step is one full batch, each process taking half
    # of it; 7 (shuffled): batches of 7 split 4/3 and a last one of 2 split 1/1,
    # where each process's loss is weighted by its share.
    history = trainer.fit({"x": xs}, ys, epochs=EPOCHS, batch_size=batch_size, shuffle=batch_size is not None, seed=5)
    return Program.from_json(trainer.artifacts()[0]).parameters, history["loss"]


def worker(rank, world, port, out, batch_size):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        parameters, losses = train(True, batch_size)
        with open(f"{out}.{rank}", "w") as f:
            json.dump({"parameters": parameters, "loss": losses}, f)
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("batch_size", [None, 7])
def test_torch_ddp_two_processes_match_one_process(tmp_path, batch_size):
    import torch.multiprocessing as mp
    out = str(tmp_path / "rank")
    mp.spawn(worker, args=(2, free_port(), out, batch_size), nprocs=2, join=True)
    ranks = []
    for r in range(2):
        with open(f"{out}.{r}") as f:
            ranks.append(json.load(f))
    single, single_loss = train(False, batch_size)
    assert ranks[0]["parameters"] == ranks[1]["parameters"]  # DDP keeps the processes in step
    assert ranks[0]["loss"] == ranks[1]["loss"]
    for name, value in single.items():
        assert value != artifact_value(name)  # it trained
        assert abs(ranks[0]["parameters"][name] - value) <= BOUND * max(1.0, abs(value)), name
    for a, b in zip(ranks[0]["loss"], single_loss):
        assert abs(a - b) <= BOUND * max(1.0, abs(b))


def artifact_value(name):
    return Program.from_json(artifact()).parameters[name]
