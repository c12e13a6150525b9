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

from ._torch import in_notebook, notebook_tqdm, require_torch

# An interpreter without torch gets an ImportError naming it and the ways out.
torch = require_torch("tensorcode.program.training (the Trainer, and its distributed training)")
from torch import nn  # noqa: E402 - after require_torch's check

from .errors import EvaluationError  # noqa: E402
from .operation import ProgramOperation  # noqa: E402

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


_NO_CASES = "fit() needs at least one case"


def _with_row(error, rows):
    """An operation's EvaluationError for case N of the batch it was given,
    renamed for the data row that case is (`rows`: the rows of the batch in
    order, as the operation got them); `.row` holds it. Other errors as they are."""
    case = getattr(error, "case", None)
    if rows is None or not isinstance(error, EvaluationError) or not isinstance(case, int) or \
            not 0 <= case < rows.shape[0]:
        return error
    row = int(rows[case])
    text = str(error).replace(f"case {case}: ", f"data row {row}: ", 1)
    renamed = type(error)(text)
    for attr in ("line", "column", "node"):
        setattr(renamed, attr, getattr(error, attr, None))
    message = getattr(error, "message", None)
    renamed.message = message.replace(f"case {case}: ", f"data row {row}: ", 1) if isinstance(message, str) else text
    renamed.case = case
    renamed.row = row
    renamed.__cause__ = error.__cause__
    return renamed


def _size(targets):
    if isinstance(targets, dict):
        return next(iter(targets.values())).shape[0]
    return targets.shape[0]


# _Progress asks through this module's name, so a test can replace it.
_in_notebook = in_notebook


class _Progress:
    """A bar on a terminal (tqdm when installed, else one updated line) and
    in a notebook (tqdm.auto: a widget where ipywidgets is installed, text
    otherwise, kept when done); nothing when stderr is neither or
    progress=False."""

    def __init__(self, total, enabled):
        self._bar = None
        self._plain = False
        self._total = total
        notebook = _in_notebook()
        if enabled is None:
            enabled = notebook or sys.stderr.isatty()
        if not enabled:
            return
        if notebook:
            tqdm = notebook_tqdm()  # the widget, or text without ipywidgets, and no warning either way
        else:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
        if tqdm is None:
            self._plain = True
            return
        # A terminal's bar goes away when done (as before); a notebook's stays as the cell's record.
        self._bar = tqdm(total=total, unit="batch", leave=notebook, file=None if notebook else sys.stderr)

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
        # A built-in loss over operations made with errors="nan" leaves their
        # failed cases (NaN predictions) out, as the bridge leaves them out of
        # the parameter sums; a callable loss sees every case.
        self._skip_failed = isinstance(loss, str) and any(getattr(op, "errors", "raise") == "nan"
                                                          for op in model.ops)
        self._progress = progress
        self._distributed = bool(distributed)
        self._world, self._rank = 1, 0
        self._last_shares, self._any_had_cases = [], False
        self.model = model
        if self._distributed:
            import torch.distributed as dist
            if not (dist.is_available() and dist.is_initialized()):
                raise RuntimeError("distributed=True needs torch.distributed initialised first "
                                   "(torch.distributed.init_process_group)")
            self._world, self._rank = dist.get_world_size(), dist.get_rank()
            # Parameters start equal (rank 0's). fit() exchanges the gradients
            # itself, after every process has said whether its part of the step
            # worked (_exchange); the wrapper is for loops of the user's own.
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
        `progress`: None (a bar when stderr is a terminal or in a notebook), True or False."""
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
        """(mean loss over the cases counted, how many were counted). With
        _skip_failed a case whose prediction is not finite (an operation's
        failed case under errors="nan") is not counted; (None, 0) when none is."""
        prediction = self._composite(inputs)
        if isinstance(targets, dict):
            if not isinstance(prediction, dict):
                raise TypeError("targets are a dict by output name, so the prediction must be a dict of outputs")
            missing = [k for k in targets if k not in prediction]
            if missing:
                raise KeyError(f"the prediction has no output '{missing[0]}' (it has {list(prediction)})")
            pairs = [(prediction[k], t) for k, t in targets.items()]
        else:
            if isinstance(prediction, dict):
                if len(prediction) != 1:
                    raise ValueError(f"the prediction has outputs {list(prediction)}: give targets as a dict by "
                                     "output name, or output=")
                prediction = next(iter(prediction.values()))
            pairs = [(prediction, targets)]
        counted = _size(targets)
        if self._skip_failed:
            ok = None
            for p, _ in pairs:
                finite = torch.isfinite(p.detach())
                ok = finite if ok is None else ok & finite
            if not bool(ok.all()):
                counted = int(ok.sum())
                if counted == 0:
                    return None, 0
                pairs = [(p[ok], t[ok]) for p, t in pairs]
        if isinstance(targets, dict):
            return sum(self._loss(p, t.to(p.dtype)) for p, t in pairs), counted
        p, t = pairs[0]
        return self._loss(p, t.to(p.dtype)), counted

    def _step(self, inputs, targets, rows=None):
        """One optimizer step over this process's cases (`inputs` None: it
        has none in this step). Returns (mean loss, cases counted).

        Under distributed=True every process calls this the same number of
        times, with or without cases: the processes first tell each other
        whether their part worked and how many cases each counted, so a
        failure on one stops all of them, and then add up their gradients
        (each process's loss weighted by its cases), so the step is the whole
        batch's step whatever the split."""
        self.optimizer.zero_grad()
        failure, loss, counted = None, None, 0
        if inputs is not None:
            try:
                loss, counted = self._batch_loss(inputs, targets)
                if loss is not None:
                    (loss * counted if self._distributed else loss).backward()
            except Exception as e:  # noqa: BLE001 (re-raised below, after the other processes hear of it)
                failure = _with_row(e, rows)
        if self._distributed:
            total = self._exchange(failure, inputs is not None, counted)
        elif failure is not None:
            raise failure
        else:
            total = counted
        if total > 0:
            self.optimizer.step()
        return (float(loss.detach()) if loss is not None else float("nan")), counted

    def _exchange(self, failure, has_cases, counted):
        """Every process's (has cases, failed, counted) to every process; on a
        failure anywhere all of them raise. Otherwise the gradients are summed
        over the processes and divided by the cases counted by all of them.
        Returns that count (0: no process had a case, nothing to step)."""
        import torch.distributed as dist
        mine = torch.tensor([float(has_cases), float(failure is not None), float(counted)], dtype=torch.float64)
        everyone = [torch.zeros(3, dtype=torch.float64) for _ in range(self._world)]
        dist.all_gather(everyone, mine)
        self._last_shares = [int(e[2]) for e in everyone]  # cases each process counted (tests read it)
        self._any_had_cases = any(e[0] != 0 for e in everyone)
        if failure is not None:
            raise failure
        failed = [r for r, e in enumerate(everyone) if e[1] != 0]
        if failed:
            raise RuntimeError(f"training stopped: process {failed[0]} failed in this step (its own error says why); "
                               f"process {self._rank} stops with it")
        total = sum(self._last_shares)
        if total == 0:
            return 0
        params = [p for p in self._composite.parameters() if p.requires_grad]
        flat = torch.cat([(p.grad if p.grad is not None else torch.zeros_like(p)).reshape(-1).to(torch.float64)
                          for p in params]) if params else torch.zeros(0, dtype=torch.float64)
        dist.all_reduce(flat)
        flat /= total
        offset = 0
        for p in params:
            n = p.numel()
            p.grad = flat[offset:offset + n].reshape(p.shape).to(p.dtype)
            offset += n
        return total

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
            raise ValueError(_NO_CASES)
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
                    # Every process takes this step, also one whose share is
                    # empty (a batch with fewer cases than processes).
                    mine = index[self._rank::self._world]
                    if mine.shape[0] == 0:
                        loss, counted = self._step(None, None)
                    else:
                        loss, counted = self._step(_take(columns, mine), _take(tgts, mine), mine)
                    if counted:
                        total += torch.tensor([loss * counted, counted], dtype=torch.float64)
                    progress.update(epoch + 1, loss)
                history.append(self._epoch_loss(total))
        finally:
            progress.close()
        return {"loss": history}

    def _fit_loader(self, loader, epochs):
        try:
            length = len(loader)
        except TypeError:  # an IterableDataset without a length
            length = None
        if length == 0 and not self._distributed:
            raise ValueError(_NO_CASES)
        history = []
        progress = _Progress(epochs * length if length is not None else None, self._progress)
        self.model.train()
        try:
            for epoch in range(epochs):
                total = torch.zeros(2, dtype=torch.float64)
                seen = 0
                items = iter(loader)
                while True:
                    item = next(items, None)
                    if item is None:
                        if not self._distributed:
                            break
                        # Another process may still have batches: take part
                        # in its steps, with no cases, until none has one.
                        self._step(None, None)
                        if not self._any_had_cases:
                            break
                        continue
                    if not (isinstance(item, (tuple, list)) and len(item) == 2 and isinstance(item[0], dict)):
                        raise TypeError("the DataLoader must yield (inputs dict, targets) pairs")
                    batch_inputs, batch_targets = item
                    seen += _size(batch_targets)
                    loss, counted = self._step(batch_inputs, batch_targets)
                    if counted:
                        total += torch.tensor([loss * counted, counted], dtype=torch.float64)
                    progress.update(epoch + 1, loss)
                if self._distributed:
                    import torch.distributed as dist
                    seen_all = torch.tensor([float(seen)], dtype=torch.float64)
                    dist.all_reduce(seen_all)
                    seen = int(seen_all[0])
                if seen == 0:
                    raise ValueError(_NO_CASES)
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
