"""Trainer: ordinary PyTorch training over ProgramOperations (imports torch).

A Trainer owns one torch module (`Trainer.model`) built from the operations
and modules it is given, a loss and a torch optimizer, and runs mini-batch
epochs over columns of data or a DataLoader. Every forward value and gradient
of an operation is the core's (the bridge of torch_module.py); the Trainer
only batches, calls the loss and steps the optimizer.

How the parts are composed, exactly:
- one operation and no `forward`: the prediction is that operation's output
  (`output=` picks one when it has several) on the batch's inputs by name;
- otherwise `forward(inputs)` is the user's callable: it receives the batch
  as {input name: tensor[B]} and returns a tensor[B] or {output: tensor[B]};
  it uses the operations and modules it was written with, and `from_ops`
  lists them only so that the Trainer trains their parameters.

The loss is loss(prediction, target), a mean over the batch; with
prediction and target dicts, the losses of the target keys are added.

What it is not: no event state, no host calls (ProgramOperation refuses both),
no CUDA (the core evaluates on the CPU), and no replacement for a custom loop
(use `trainer.model` and `trainer.optimizer` for one).
"""
import sys

import torch
from torch import nn

from .operation import ProgramOperation

__all__ = ["Trainer"]

_LOSSES = {
    "mse": nn.functional.mse_loss,
    "l1": nn.functional.l1_loss,
    "huber": nn.functional.huber_loss,
    "smooth_l1": nn.functional.smooth_l1_loss,
}

_OPTIMIZERS = {
    "sgd": torch.optim.SGD,
    "adam": torch.optim.Adam,
    "adamw": torch.optim.AdamW,
    "rmsprop": torch.optim.RMSprop,
    "adagrad": torch.optim.Adagrad,
}


def _loss_function(loss):
    if isinstance(loss, str):
        try:
            return _LOSSES[loss.lower()]
        except KeyError:
            raise ValueError(f"unknown loss '{loss}' (expected one of {', '.join(_LOSSES)}, or a callable "
                             "loss(prediction, target))") from None
    if callable(loss):
        return loss
    raise TypeError(f"loss must be a name or a callable loss(prediction, target), not {type(loss).__name__}")


class _Composite(nn.Module):
    """The module the Trainer trains (and DistributedDataParallel wraps)."""

    def __init__(self, ops, modules, forward, output):
        super().__init__()
        self.ops = nn.ModuleList(ops)
        self.extra = nn.ModuleList(modules)
        self._user_forward = forward
        self._output = output

    def forward(self, inputs):
        if self._user_forward is not None:
            return self._user_forward(inputs)
        # One operation: its output `output`, its only output, or (several
        # outputs, targets by output name) the dict of them.
        outputs = self.ops[0](inputs)  # the batched bridge: {output: tensor[B]}
        if self._output is not None:
            return outputs[self._output]
        return next(iter(outputs.values())) if len(outputs) == 1 else outputs


def _as_column(name, value):
    if isinstance(value, torch.Tensor):
        column = value
    else:
        try:
            column = torch.as_tensor(value)
        except (TypeError, ValueError, RuntimeError) as e:
            raise TypeError(f"column '{name}' must be a tensor, a numpy array or a list of numbers ({e})") from None
    if column.dim() != 1:
        raise ValueError(f"column '{name}' must be 1-d (one value per case), not of shape {tuple(column.shape)}")
    return column


def _columns(inputs, targets):
    if not isinstance(inputs, dict) or not inputs:
        raise TypeError("inputs must be a non-empty dict of columns {input name: tensor or numpy array} "
                        "or a torch.utils.data.DataLoader")
    cols = {k: _as_column(k, v) for k, v in inputs.items()}
    if targets is None:
        raise ValueError("fit() needs targets with columns of inputs (a DataLoader yields its own)")
    tgts = ({k: _as_column(f"target {k}", v) for k, v in targets.items()} if isinstance(targets, dict)
            else _as_column("target", targets))
    sizes = {k: c.shape[0] for k, c in cols.items()}
    sizes.update({f"target {k}": c.shape[0] for k, c in tgts.items()} if isinstance(tgts, dict)
                 else {"target": tgts.shape[0]})
    if len(set(sizes.values())) != 1:
        raise ValueError(f"the columns have different lengths: {sizes}")
    return cols, tgts, next(iter(sizes.values()))


def _take(columns, index):
    if isinstance(columns, dict):
        return {k: v[index] for k, v in columns.items()}
    return columns[index]


def _size(targets):
    if isinstance(targets, dict):
        return next(iter(targets.values())).shape[0]
    return targets.shape[0]


class _Progress:
    """A bar on a terminal (tqdm when installed, else one updated line);
    nothing when stderr is not a terminal or progress=False."""

    def __init__(self, total, enabled):
        self._bar = None
        self._plain = False
        self._total = total
        if enabled is None:
            enabled = sys.stderr.isatty()
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            self._plain = True
            return
        self._bar = tqdm(total=total, unit="batch", leave=False, file=sys.stderr)

    def update(self, epoch, loss):
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix(epoch=epoch, loss=f"{loss:.4g}", refresh=False)
        elif self._plain:
            sys.stderr.write(f"\repoch {epoch}  loss {loss:.4g}")
            sys.stderr.flush()

    def close(self):
        if self._bar is not None:
            self._bar.close()
        elif self._plain:
            sys.stderr.write("\n")


class Trainer:
    """Trains ProgramOperations (and modules composed with them) with a torch
    optimizer. Build one with Trainer.from_ops."""

    def __init__(self, model, *, loss="mse", optimizer="adam", lr=None, optimizer_options=None, distributed=False,
                 progress=None):
        if not isinstance(model, _Composite):
            raise TypeError("use Trainer.from_ops(ops, ...) to make a Trainer")
        self._composite = model
        self._loss = _loss_function(loss)
        self._progress = progress
        self._distributed = bool(distributed)
        self._world, self._rank = 1, 0
        self.model = model
        if self._distributed:
            import torch.distributed as dist
            if not (dist.is_available() and dist.is_initialized()):
                raise RuntimeError("distributed=True needs torch.distributed initialised first "
                                   "(torch.distributed.init_process_group)")
            self._world, self._rank = dist.get_world_size(), dist.get_rank()
            # Parameters start equal (rank 0's) and gradients are averaged over processes.
            self.model = nn.parallel.DistributedDataParallel(model)
        self.optimizer = self._optimizer(optimizer, lr, optimizer_options or {})

    @classmethod
    def from_ops(cls, ops, *, forward=None, modules=(), output=None, loss="mse", optimizer="adam", lr=None,
                 optimizer_options=None, distributed=False, progress=None):
        """`ops`: a ProgramOperation or a list of them; `modules`: other
        torch.nn.Modules whose parameters train with them (used by `forward`);
        `forward(inputs)`: the composition (see the module's docstring), needed
        unless there is one operation; `output`: that operation's output to
        train when it has several. `loss`: "mse" (default), "l1", "huber",
        "smooth_l1" or a callable loss(prediction, target) returning the batch
        mean. `optimizer`: a name ("adam", "sgd", "adamw", "rmsprop",
        "adagrad") built with lr= and optimizer_options=, an optimizer class,
        or a torch.optim.Optimizer already built over these parameters.
        `distributed=True` trains under torch.distributed with
        DistributedDataParallel (each process takes its share of every batch).
        `progress`: None (a bar when stderr is a terminal), True or False."""
        op_list = [ops] if isinstance(ops, nn.Module) else list(ops)
        if not op_list:
            raise ValueError("from_ops() needs at least one ProgramOperation")
        for op in op_list:
            if not isinstance(op, ProgramOperation):
                raise TypeError(f"from_ops() takes ProgramOperations (other modules go in modules=), "
                                f"not {type(op).__name__}")
        module_list = [modules] if isinstance(modules, nn.Module) else list(modules)
        for m in module_list:
            if not isinstance(m, nn.Module):
                raise TypeError(f"modules= takes torch.nn.Modules, not {type(m).__name__}")
        if forward is None and (len(op_list) != 1 or module_list):
            raise ValueError("several operations or extra modules need forward=: a callable taking the batch "
                             "{input name: tensor} and returning the prediction")
        if forward is not None and not callable(forward):
            raise TypeError("forward must be a callable forward(inputs)")
        model = _Composite(op_list, module_list, forward, output)
        return cls(model, loss=loss, optimizer=optimizer, lr=lr, optimizer_options=optimizer_options,
                   distributed=distributed, progress=progress)

    def _optimizer(self, optimizer, lr, options):
        params = list(self._composite.parameters())
        if isinstance(optimizer, torch.optim.Optimizer):
            mine = {id(p) for p in params}
            theirs = {id(p) for g in optimizer.param_groups for p in g["params"]}
            if not theirs <= mine:
                raise ValueError("the optimizer holds parameters that are not the operations' or the modules'")
            return optimizer
        kwargs = dict(options)
        if lr is not None:
            kwargs["lr"] = float(lr)
        if isinstance(optimizer, str):
            try:
                cls = _OPTIMIZERS[optimizer.lower()]
            except KeyError:
                raise ValueError(f"unknown optimizer '{optimizer}' (expected one of {', '.join(_OPTIMIZERS)}, "
                                 "a torch.optim class or instance)") from None
            if cls is torch.optim.SGD:
                kwargs.setdefault("lr", 0.01)
            return cls(params, **kwargs)
        if isinstance(optimizer, type) and issubclass(optimizer, torch.optim.Optimizer):
            return optimizer(params, **kwargs)
        raise TypeError(f"optimizer must be a name, a torch.optim class or instance, not {type(optimizer).__name__}")

    # -- training ---------------------------------------------------------
    def _batch_loss(self, inputs, targets):
        prediction = self.model(inputs)
        if isinstance(targets, dict):
            if not isinstance(prediction, dict):
                raise TypeError("targets are a dict by output name, so the prediction must be a dict of outputs")
            missing = [k for k in targets if k not in prediction]
            if missing:
                raise KeyError(f"the prediction has no output '{missing[0]}' (it has {list(prediction)})")
            return sum(self._loss(prediction[k], t.to(prediction[k].dtype)) for k, t in targets.items())
        if isinstance(prediction, dict):
            if len(prediction) != 1:
                raise ValueError(f"the prediction has outputs {list(prediction)}: give targets as a dict by output "
                                 "name, or output=")
            prediction = next(iter(prediction.values()))
        return self._loss(prediction, targets.to(prediction.dtype))

    def _step(self, inputs, targets, share):
        """One optimizer step; `share` scales this process's mean loss so that
        the processes' average is the whole batch's mean."""
        self.optimizer.zero_grad()
        loss = self._batch_loss(inputs, targets)
        (loss * share if share != 1 else loss).backward()
        self.optimizer.step()
        return float(loss.detach())

    def fit(self, inputs, targets=None, *, epochs=1, batch_size=32, shuffle=True, seed=0):
        """Trains for `epochs` over the cases: `inputs` is {input name:
        column} (tensors, numpy arrays or lists, one value per case) with
        `targets` a column or {output: column}; or a DataLoader yielding
        (inputs dict, targets) batches, whose own batching, order and sampler
        are used (batch_size, shuffle and seed then do not apply). The order
        of the cases is drawn from `seed` alone, so a seed gives the same
        run. Returns {"loss": [mean loss of each epoch]}."""
        epochs = int(epochs)
        if epochs < 0:
            raise ValueError("epochs must be a non-negative integer")
        if isinstance(inputs, torch.utils.data.DataLoader):
            if targets is not None:
                raise ValueError("a DataLoader yields its own targets: call fit(loader, epochs=...)")
            return self._fit_loader(inputs, epochs)
        columns, tgts, count = _columns(inputs, targets)
        if count == 0:
            raise ValueError("fit() needs at least one case")
        batch = count if batch_size is None else int(batch_size)
        if batch < 1:
            raise ValueError("batch_size must be at least 1")
        batches = (count + batch - 1) // batch
        generator = torch.Generator()
        generator.manual_seed(int(seed))
        history = []
        progress = _Progress(epochs * batches, self._progress)
        self.model.train()
        try:
            for epoch in range(epochs):
                order = torch.randperm(count, generator=generator) if shuffle else torch.arange(count)
                total = torch.zeros(2, dtype=torch.float64)  # loss * cases, cases
                for b in range(batches):
                    index = order[b * batch:(b + 1) * batch]
                    size = index.shape[0]
                    mine = index[self._rank::self._world]
                    if mine.shape[0] == 0:  # fewer cases than processes: every process skips it
                        continue
                    share = self._world * mine.shape[0] / size
                    loss = self._step(_take(columns, mine), _take(tgts, mine), share)
                    total += torch.tensor([loss * mine.shape[0], mine.shape[0]], dtype=torch.float64)
                    progress.update(epoch + 1, loss)
                history.append(self._epoch_loss(total))
        finally:
            progress.close()
        return {"loss": history}

    def _fit_loader(self, loader, epochs):
        history = []
        progress = _Progress(epochs * len(loader) if hasattr(loader, "__len__") else None, self._progress)
        self.model.train()
        try:
            for epoch in range(epochs):
                total = torch.zeros(2, dtype=torch.float64)
                for item in loader:
                    if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], dict)):
                        raise TypeError("the DataLoader must yield (inputs dict, targets) pairs")
                    batch_inputs, batch_targets = item
                    size = _size(batch_targets)
                    loss = self._step(batch_inputs, batch_targets, 1)
                    total += torch.tensor([loss * size, size], dtype=torch.float64)
                    progress.update(epoch + 1, loss)
                history.append(self._epoch_loss(total))
        finally:
            progress.close()
        return {"loss": history}

    def _epoch_loss(self, total):
        if self._distributed:
            import torch.distributed as dist
            dist.all_reduce(total)  # every process reports the mean over all of them
        return float(total[0] / total[1]) if total[1] > 0 else float("nan")

    # -- results ----------------------------------------------------------
    @property
    def ops(self):
        """The operations, in the order given."""
        return list(self._composite.ops)

    def artifacts(self):
        """The trained artifacts (JSON text), one per operation in order."""
        return [op.artifact() for op in self._composite.ops]
