"""What feeding the Trainer costs, and what one 0-d tensor per parameter
costs an optimizer (issue 41: docs/python.md, "What data loading costs").

usage (after the standard build, from the project root):
  /usr/bin/python3 bench/trainer_data_bench.py [--build build] [--quick]

1. One epoch of Trainer.fit (SGD, batches of 64) over N cases of a learned
   correction on a fixed rule, fed three ways:
   - columns: fit({"x": tensor[N]}, tensor[N]) (the Trainer slices batches);
   - loader, per item: a DataLoader over a map-style Dataset whose
     __getitem__ returns ({"x": x_i}, y_i), batched by the default collate;
   - loader, per batch: a DataLoader with batch_size=None over a
     BatchSampler, whose __getitem__ takes the batch's indices and returns
     ({"x": xs[idx]}, ys[idx]).
2. One Adam step over P parameters held as P 0-d tensors (how the bridge
   holds a program's parameters), with torch's default per-tensor loop and
   with foreach=True, against one tensor of P values.

Medians of the rounds, thread CPU time of this thread (the DataLoaders run
without worker processes), one torch thread.
"""
import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
parser = argparse.ArgumentParser()
parser.add_argument("--build", default=str(ROOT / "build"))
parser.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
args = parser.parse_args()
sys.path.insert(0, str(pathlib.Path(args.build, "python")))

import torch  # noqa: E402

from tensorcode.program import Builder  # noqa: E402
from tensorcode.program.operation import ProgramOperation  # noqa: E402
from tensorcode.program.training import Trainer  # noqa: E402

torch.set_num_threads(1)
ROUNDS = 3 if args.quick else 7
N = 2_000 if args.quick else 10_000
BATCH = 64


def operation():
    rules = Builder()
    a = rules.input("a")
    algorithm = rules.build(rules.select(a > 4, 10, 12))
    b = Builder(semantics="hybrid")
    x = b.input("x")
    w = b.parameter("w", 0.0)
    c = b.parameter("c", 0.0)
    return ProgramOperation(b.build(b.include(algorithm, {"a": x}, prefix="algorithm")["result"] + w * x + c))


xs = torch.linspace(-3, 8, N, dtype=torch.float64)
ys = torch.where(xs > 4, 10.0, 12.0) + 0.5 * xs - 0.25


class PerItem(torch.utils.data.Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return {"x": xs[i]}, ys[i]


class PerBatch(torch.utils.data.Dataset):
    def __len__(self):
        return N

    def __getitem__(self, idx):
        idx = torch.as_tensor(idx)
        return {"x": xs[idx]}, ys[idx]


def timed(fn):
    t = time.thread_time()
    fn()
    return time.thread_time() - t


def epoch_columns():
    Trainer.from_ops(operation(), optimizer="sgd", lr=0.01, progress=False).fit(
        {"x": xs}, ys, epochs=1, batch_size=BATCH, seed=0)


def epoch_per_item():
    loader = torch.utils.data.DataLoader(PerItem(), batch_size=BATCH, shuffle=True,
                                         generator=torch.Generator().manual_seed(0))
    Trainer.from_ops(operation(), optimizer="sgd", lr=0.01, progress=False).fit(loader, epochs=1)


def epoch_per_batch():
    sampler = torch.utils.data.BatchSampler(
        torch.utils.data.RandomSampler(range(N), generator=torch.Generator().manual_seed(0)), BATCH, False)
    loader = torch.utils.data.DataLoader(PerBatch(), batch_size=None, sampler=sampler)
    Trainer.from_ops(operation(), optimizer="sgd", lr=0.01, progress=False).fit(loader, epochs=1)


def adam_step(params, foreach=False):
    opt = torch.optim.Adam(params, lr=0.01, foreach=foreach)
    for p in params:
        p.grad = torch.ones_like(p)
    opt.step()  # the state is made in the first step; time the next ones
    return timed(lambda: [opt.step() for _ in range(20)]) / 20


def main():
    feeds = {"columns": epoch_columns, "loader, per item": epoch_per_item, "loader, per batch": epoch_per_batch}
    times = {k: [] for k in feeds}
    for _ in range(ROUNDS):
        for k, fn in feeds.items():  # interleaved: every way sees the same load
            times[k].append(timed(fn))
    base = statistics.median(times["columns"])
    print(f"one epoch, {N} cases, batches of {BATCH} (thread CPU time, median of {ROUNDS}):")
    for k, ts in times.items():
        m = statistics.median(ts)
        print(f"  {k:18s} {m * 1e3:8.1f} ms  {m / N * 1e6:6.2f} us/case  {m / base:5.2f}x columns")
    print("one Adam step (thread CPU time, median):")
    for count in (10, 100, 1000):
        def scalars():
            return [torch.nn.Parameter(torch.tensor(0.0, dtype=torch.float64)) for _ in range(count)]
        zero_d = statistics.median(adam_step(scalars()) for _ in range(ROUNDS))
        zero_d_foreach = statistics.median(adam_step(scalars(), foreach=True) for _ in range(ROUNDS))
        one = statistics.median(adam_step([torch.nn.Parameter(torch.zeros(count, dtype=torch.float64))])
                                for _ in range(ROUNDS))
        print(f"  {count:5d} parameters: {count} 0-d tensors {zero_d * 1e6:9.1f} us "
              f"(foreach=True {zero_d_foreach * 1e6:8.1f} us), one tensor of {count} {one * 1e6:6.1f} us")


main()
