"""The PyTorch bridge: a program as a torch.nn.Module (imported only by
Program.to_tensor_module() and tensorcode.program.operation).

Forward values and gradients come from the core's checked evaluator and
reverse mode, in the program's own semantics (exact, relaxed, hybrid); torch
only carries them. Each input is a 1-D tensor [B] (one case per element), a
0-d tensor or a number (the same value for every case): one call evaluates
the whole batch in core, and backward is the core's batched reverse pass
over the values the forward kept (it never runs the forward again). It is
not a CUDA version of the circuit: tensors must be on the CPU.
"""
from collections.abc import Mapping

from ._torch import require_torch

# An interpreter without torch gets an ImportError naming it and the ways out.
torch = require_torch("the PyTorch bridge (Program.to_tensor_module, tensorcode.program.operation)")
from torch import nn  # noqa: E402 - after require_torch's check
from torch._C import _functions  # noqa: E402

import numpy as np  # noqa: E402 - torch's CPU tensors and the core's arrays share memory through it

_SECOND_ORDER = (b"a tensorcode program has first derivatives only: differentiating its gradient again "
                 b"(create_graph=True, then grad of the result) is not supported")


def _first_order_only(ctx, grads):
    """With create_graph=True, routes the gradients (computed without grad
    mode) through a node that raises if they are differentiated again. Like
    torch.autograd.function.once_differentiable, but keyed on create_graph
    rather than on whether the grad_outputs require grad: once_differentiable
    lets them through as constants when the incoming grad does not require
    grad, as for `torch.autograd.grad(y, x, create_graph=True)`, and its
    error node is not on any path to x: the circuit's part of the second
    derivative was silently dropped."""
    where = [k for k, g in enumerate(grads) if isinstance(g, torch.Tensor)]
    if not where:
        return grads
    fake = []
    for k in where:
        g = grads[k].detach()
        g.requires_grad = True
        fake.append(g)
    # The forward's inputs join the error node too, so that a later grad
    # with respect to any of them passes through it (autograd runs only
    # the nodes on a path to the requested inputs).
    anchors = [t for t in ctx.meta[1] if isinstance(t, torch.Tensor) and t.requires_grad]
    guarded = _functions.DelayedError(_SECOND_ORDER, len(fake) + len(anchors))(*fake, *anchors)
    if not isinstance(guarded, tuple):
        guarded = (guarded,)
    grads = list(grads)
    for k, g in zip(where, guarded):
        grads[k] = g
    return tuple(grads)


_INTEGRAL = ("int32", "boolean")
_Tensor, _F64, _F32 = torch.Tensor, torch.float64, torch.float32
_NUMPY = {torch.float64: np.float64, torch.float32: np.float32}
_SCALAR = (torch.Size([]), torch.float64)


def _column(name, value, domain):
    """(value for the core, tensor or None, batch length or None)."""
    if isinstance(value, torch.Tensor):
        if value.dtype is torch.float64 and value.dim() == 0 and value.device.type == "cpu":
            return value.item(), value, None  # the common scalar: a Python float is the core's fastest
        if value.device.type != "cpu":
            raise ValueError(f"input '{name}' is on {value.device}: the program runs on the CPU; move the tensor "
                             "with .cpu() (outputs and gradients come back on the CPU)")
        if value.dim() > 1:
            raise ValueError(f"input '{name}' has shape {list(value.shape)}: give a 1-D tensor [B] (one case per "
                             "element) or a 0-d tensor; flatten a batch with .reshape(-1), or select scalar values")
        if value.is_complex():
            raise TypeError(f"input '{name}' is a complex tensor ({value.dtype}): the program takes real numbers")
        if not value.is_floating_point() and domain is not None and domain.type not in _INTEGRAL:
            raise TypeError(f"input '{name}' is an integer tensor ({value.dtype}) but the program's input is "
                            f"{domain.type}: convert it with .double() (or .float())")
        data = value.detach()
        if data.dtype != torch.float64:
            data = data.to(torch.float64)
        # Contiguous float64 passes to the core without a copy.
        array = data.contiguous().numpy()
        return array, value, (value.shape[0] if value.dim() == 1 else None)
    if isinstance(value, (bool, int, float)):
        return float(value), None, None
    raise TypeError(f"input '{name}' must be a tensor or a number, not {type(value).__name__}")


def _seed(g):
    """A grad_output as a core seed: None, a number, or a float64 column (an
    expanded one, stride 0 as from the backward of sum(), the core reads as
    the one value every case shares)."""
    if g is None:
        return None
    if g.dim() == 0:
        return float(g)
    if not g.requires_grad:
        if g.dtype is torch.float64:
            return g.numpy()  # contiguous or stride 0: no copy; other strides the core copies
        if g.dtype is torch.float32 and g.stride(0) != 0:
            return g.numpy()  # the core converts it to float64 as it reads it, in C
    if g.stride(0) == 0:
        return float(g[0])  # expanded from one value
    return g.detach().to(torch.float64).contiguous().numpy()


class _ProgramFunction(torch.autograd.Function):
    """Outputs of the circuit for a batch; backward asks the core for the
    batched VJP over the record the forward kept. The module's parameters
    come in as one flat tensor (the last value, when the program has any)."""

    # Per call the bridge's own work runs between two passes over the whole
    # record, which leave the caches cold for it: every torch op or Python
    # call here costs several times its warm price, so there are few.
    @staticmethod
    def forward(ctx, call, *values):
        module, names, columns, shapes, count, batched, out_dtype, keep, summed = call
        # One tolist() for every parameter: Python floats, the core's fastest.
        params = dict(zip(module.parameter_names, values[-1].tolist())) if module._count else None
        outputs, record = module._core.batch_forward(columns, params, count, keep, module.errors, module.threads,
                                                     batched)
        # The inputs are kept only as anchors for _first_order_only: the
        # record holds every value backward reads, so no SavedVariables.
        ctx.meta = (record, values, names, shapes, summed, module, batched)
        if keep:
            module._pending.append(ctx)
        if not batched:
            return tuple(torch.tensor(v, dtype=out_dtype) for v in outputs[:, 0].tolist())
        if out_dtype is not torch.float64:
            if out_dtype is torch.float32:  # numpy's cast: cheaper than a torch op on a small batch
                return tuple(torch.from_numpy(row.astype(np.float32)) for row in outputs)
            return tuple(torch.from_numpy(row).to(out_dtype) for row in outputs)
        if len(outputs) == 1:
            return (torch.from_numpy(outputs[0]),)
        return tuple(torch.from_numpy(row) for row in outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # Nothing is saved, but this raises torch's own error on a second
        # backward through a graph that was not retained.
        ctx.saved_tensors
        if ctx.meta[0] is None:
            raise RuntimeError("this forward kept no record for backward (it ran without gradients)")
        if torch.is_grad_enabled():  # create_graph=True
            with torch.no_grad():
                grads = _ProgramFunction._gradients(ctx, grad_outputs)
            return _first_order_only(ctx, grads)
        return _ProgramFunction._gradients(ctx, grad_outputs)

    @staticmethod
    def _gradients(ctx, grad_outputs):
        record, values, names, shapes, summed, module, batched = ctx.meta
        grad_in, grad_param = record.reverse([_seed(g) for g in grad_outputs], summed, module.threads, batched)
        needed = ctx.needs_input_grad
        grads = [None]
        if shapes is None:  # the fast call: no input requires grad
            grads *= len(names) + 1
        for k, (name, shape) in enumerate(zip(names, shapes or ()), 1):
            g = grad_in.get(name) if shape is not None and needed[k] else None
            if g is None:  # a number, not a differentiable input, or no gradient asked for
                grads.append(None)
                continue
            size, dtype = shape
            if isinstance(g, float):  # one value (a 0-d or one-element input, or one case)
                t = torch.tensor(g, dtype=dtype)
                grads.append(t if len(size) == 0 else t.reshape(size))
            elif dtype is torch.float64:
                grads.append(torch.from_numpy(g))
            else:
                grads.append(torch.from_numpy(g).to(dtype))
        if module._count:
            if not needed[-1]:
                grads.append(None)
            elif (len(grad_param) == module._count and values[-1].dtype in _NUMPY
                  and tuple(grad_param) == module.parameter_names):
                # Every parameter, in the program's order (the usual case):
                # one [n] array in the flat parameter's dtype, no Python floats.
                grads.append(torch.from_numpy(np.fromiter(grad_param.values(), _NUMPY[values[-1].dtype],
                                                          module._count)))
            else:  # a parameter the output does not reach gets 0
                grads.append(torch.tensor([float(grad_param[p]) if p in grad_param else 0.0
                                           for p in module.parameter_names], dtype=values[-1].dtype))
        return tuple(grads)


class ParameterView(nn.Parameter):
    """One program parameter of a TensorModule: a 0-d view of the module's
    flat `weights` parameter (same storage, so values written through it,
    an optimizer step or load_state_dict are seen on both sides). Its
    `.grad` is the matching element of `weights.grad`, and a gradient that
    reaches it through an expression of your own (a penalty on one
    coefficient) is added there too, so optimizers over
    `module.parameters()` see it. Not registered with the module: the
    optimizer steps the one flat tensor."""

    @property
    def grad(self):
        g = self._flat.grad
        return None if g is None else g[self._index]

    @grad.setter
    def grad(self, value):
        # Setting one coefficient's gradient (None: zero) writes its element.
        flat = self._flat
        with torch.no_grad():
            if flat.grad is None:
                if value is None:
                    return
                flat.grad = torch.zeros_like(flat)
            flat.grad[self._index] = 0.0 if value is None else value

    def __repr__(self):
        return f"ParameterView('{self._name}', {float(self.detach()):.6g}, dtype={self.dtype})"

    def __reduce_ex__(self, protocol):
        # On its own (outside the module) a view pickles as a plain 0-d
        # Parameter with its value.
        return (nn.Parameter, (self.detach().clone(), self.requires_grad))


def _view(flat, index, name):
    v = ParameterView(flat.detach()[index], flat.requires_grad)
    v._flat, v._index, v._name = flat, index, name

    def route(g):
        # A gradient through the view itself goes to the flat parameter.
        with torch.no_grad():
            if flat.grad is None:
                flat.grad = torch.zeros_like(flat)
            flat.grad[index] += g.to(flat.dtype)
    if flat.requires_grad:
        v.register_hook(route)
    return v


class _Views(Mapping):
    """module.params: parameter key -> ParameterView, read-only."""

    def __init__(self, views):
        self._views = views

    def __getitem__(self, key):
        return self._views[key]

    def __iter__(self):
        return iter(self._views)

    def __len__(self):
        return len(self._views)

    def __repr__(self):
        return f"params({', '.join(f'{k}={float(v.detach()):.6g}' for k, v in self._views.items())})"


class TensorModule(nn.Module):
    """A program as a module. Its parameters are held in one flat
    nn.Parameter `weights` of shape [n] (program order, in the program's
    dtype: float32 for a float32 program, float64 otherwise), so an optimizer
    step costs one tensor, not one per coefficient. `params` maps each name
    ('.' written as '/') to a ParameterView of it, `parameter(name)` takes
    the program's name, and state_dict keeps the per-name keys
    `params.NAME` (older saved state dicts load unchanged).

    forward({input: value}) takes per input a 1-D tensor [B] (one case per
    element), a 0-d tensor or a number (shared by every case) and returns a
    dict of [B] tensors by output name (0-d tensors when no input is 1-D).
    Computation is in the program's dtype; outputs come back in the inputs'
    floating dtype (float64 when there is none) and each input's gradient in
    its own dtype. `errors="nan"` gives a failing case NaN outputs and zero
    gradients (left out of the parameter gradients) instead of raising
    EvaluationError; `threads` cores share a batch (0: every core)."""

    def __init__(self, program, *, errors="raise", threads=1):
        super().__init__()
        from . import Program
        if not isinstance(program, Program):
            raise TypeError(f"expected a tensorcode.program.Program, not {type(program).__name__}")
        if errors not in ("raise", "nan"):
            raise ValueError(f"errors must be 'raise' or 'nan', not {errors!r}")
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
            raise ValueError(f"threads must be 0 (every core) or a positive count, not {threads!r}")
        info = program._c.info()
        self._program = program
        self._core = program._c
        self.errors = errors
        self.threads = threads
        self.input_names = tuple(name for name, _, _ in info["inputs"])
        self._domains = {name: domain for name, domain, _ in info["inputs"]}
        self.output_names = tuple(info["outputs"])
        self.parameter_names = tuple(name for name, _ in info["parameters"])
        self._keys = {}
        for index, (name, value) in enumerate(info["parameters"]):
            key = name.replace(".", "/")
            if not key or key in self._keys.values():
                key = f"p{index}/{key}"
            self._keys[name] = key
        self._weight_keys = tuple(self._keys[n] for n in self.parameter_names)
        self._count = len(self.parameter_names)
        self._pending = []  # contexts whose records a later forward may free (_release)
        dtype = torch.float32 if info["dtype"] == "float32" else torch.float64
        if self._count:
            self.weights = nn.Parameter(torch.tensor([float(v) for _, v in info["parameters"]], dtype=dtype))
        else:
            self.register_parameter("weights", None)
        self._views = None

    # -- per-name access ---------------------------------------------------

    @property
    def params(self):
        """{key: ParameterView}: each parameter by name ('.' written '/')."""
        flat = self._parameters.get("weights")
        cached = self.__dict__.get("_views")
        if cached is not None and cached[0] is flat and cached[1] == (None if flat is None else flat.data_ptr()):
            return cached[2]
        views = _Views({} if flat is None else
                       {key: _view(flat, i, name) for i, (name, key) in enumerate(zip(self.parameter_names,
                                                                                        self._weight_keys))})
        self.__dict__["_views"] = (flat, None if flat is None else flat.data_ptr(), views)
        return views

    def parameter(self, name):
        """The ParameterView of the program parameter `name`."""
        try:
            return self.params[self._keys[name]]
        except KeyError:
            raise KeyError(f"the program has no parameter '{name}'") from None

    def _values(self):
        flat = self._parameters.get("weights")
        return [] if flat is None else flat.detach().tolist()

    # -- state_dict: the per-name keys of earlier versions -------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        flat = destination.pop(prefix + "weights", None)
        if flat is None:
            return
        views = self.params if keep_vars else None
        for i, key in enumerate(self._weight_keys):
            destination[prefix + "params." + key] = views[key] if keep_vars else flat[i]

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        flat = self._parameters.get("weights")
        if flat is not None and prefix + "weights" not in state_dict:
            # Per-name entries (what state_dict() writes, and what modules
            # saved before the flat layout wrote) become one flat entry.
            values = flat.detach().clone()
            for i, key in enumerate(self._weight_keys):
                full = prefix + "params." + key
                if full not in state_dict:
                    missing_keys.append(full)
                    continue
                v = state_dict.pop(full)
                if not isinstance(v, torch.Tensor) or v.numel() != 1:
                    shape = list(v.shape) if isinstance(v, torch.Tensor) else type(v).__name__
                    error_msgs.append(f"size mismatch for {full}: copying a param with shape {shape} from "
                                      "checkpoint, the shape in current model is [] (one value)")
                    continue
                values[i] = v.detach().reshape(())
            state_dict[prefix + "weights"] = values
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_views"] = None  # rebuilt on use (their hooks are closures)
        state["_pending"] = []
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        old = self._modules.get("params") if "weights" not in self._parameters else None
        if old is not None:
            # A module pickled before the flat layout: its ParameterDict of
            # 0-d parameters becomes the flat one.
            del self._modules["params"]
            self._count = len(self.parameter_names)
            self._pending, self._views = [], None
            self.weights = nn.Parameter(torch.stack([old[k].detach() for k in self._weight_keys])) \
                if self._count else None

    # -- the call -------------------------------------------------------------

    def _release(self):
        """Frees the records of earlier calls whose backward has run on a
        graph that was not retained, before the next forward: their blocks
        go back to the core's pool and this forward takes them instead of
        new pages. A record still needed (no backward yet, or a retained
        graph) stays."""
        pending = self._pending
        keep = []
        for ctx in pending:
            try:
                ctx.saved_tensors
            except RuntimeError:  # backward ran and the graph was freed
                ctx.meta = (None,) + ctx.meta[1:]
                continue
            keep.append(ctx)
        pending[:] = keep

    def forward(self, inputs):
        if not isinstance(inputs, dict):
            raise TypeError(f"forward() takes a dict of input tensors, not {type(inputs).__name__}")
        if self._pending:
            self._release()
        # Missing and unknown names are the core's to report.
        names = tuple(inputs)
        # self.weights without nn.Module.__getattr__ (on Python 3.11 each use
        # of it raises and clears an AttributeError).
        flat = self._parameters["weights"]
        weights = () if flat is None else (flat,)
        # The common training call: 1-D CPU columns of one length (over 1) and
        # one floating dtype, none requiring grad. Each goes to the core as
        # .numpy() (no copy; a float32 column the core converts as it reads
        # it, in C), with no shapes kept and no input gradients asked for.
        columns, count, dtype = [], None, None
        for name in names:
            v = inputs[name]
            if v.__class__ is not _Tensor or v.requires_grad or v.ndim != 1 or not v.is_cpu:
                break
            d = v.dtype
            if d is not dtype:
                if dtype is not None or (d is not _F64 and d is not _F32):
                    break
                dtype = d
            length = v.shape[0]
            if length != count:
                if count is not None or length == 1:
                    break
                count = length
            columns.append(v.numpy())
        else:
            if count is not None:
                keep = flat is not None and flat.requires_grad and torch.is_grad_enabled()
                call = (self, names, dict(zip(names, columns)), None, count, True, dtype, keep, None)
                return dict(zip(self.output_names, _ProgramFunction.apply(call, *inputs.values(), *weights)))
        # The common scalar call (0-d float64 CPU tensors and numbers): no
        # batch bookkeeping, so one case costs no more than it always did.
        values, shapes = [], []
        for name in names:
            v = inputs[name]
            if isinstance(v, torch.Tensor):
                if v.dtype is not torch.float64 or v.dim() != 0 or not v.is_cpu:
                    break
                values.append(v.item())
                shapes.append(_SCALAR)
            elif type(v) is float or type(v) is int:
                values.append(float(v))
                shapes.append(None)
            else:
                break
        else:
            keep = torch.is_grad_enabled()
            call = (self, names, dict(zip(names, values)), shapes, 1, False, torch.float64, keep, names)
            outputs = _ProgramFunction.apply(call, *[inputs[name] for name in names], *weights)
            return dict(zip(self.output_names, outputs))
        values, shapes = [], []
        count, sized_by, out_dtype, other_dtype = None, None, None, False
        batched, shared, grads = False, False, False
        for name in names:
            v = inputs[name]
            if isinstance(v, torch.Tensor) and v.dtype is torch.float64 and v.dim() == 1 and v.is_cpu:
                # The common column: the core reads it in place (it copies a strided one).
                value, tensor, length = v.detach().numpy(), v, v.shape[0]
            else:
                value, tensor, length = _column(name, v, self._domains.get(name))
            values.append(value)
            if tensor is None:
                shapes.append(None)
                continue
            shape = tensor.shape
            shapes.append((shape, tensor.dtype))
            grads = grads or tensor.requires_grad
            if len(shape) == 1:
                batched = True
            if length is None or length == 1:
                shared = True  # one value for every case: its gradient is the sum over the cases
            if tensor.dtype is torch.float64:
                if out_dtype is None:
                    out_dtype = torch.float64
            elif tensor.is_floating_point():
                other_dtype = True
            if length is not None and length != 1:
                if count is None:
                    count, sized_by = length, name
                elif length != count:
                    raise ValueError(f"input '{name}' has {length} cases but input '{sized_by}' has {count}: "
                                     "1-D inputs must have the same length (or length 1)")
        if count is None:
            count = 1
        if other_dtype:
            # The inputs' floating dtypes promoted (float64 when there is none).
            out_dtype = None
            for s in shapes:
                if s is not None and s[1].is_floating_point:
                    out_dtype = s[1] if out_dtype is None else torch.promote_types(out_dtype, s[1])
        elif out_dtype is None:
            out_dtype = torch.float64
        keep = torch.is_grad_enabled() and (grads or (flat is not None and flat.requires_grad))
        # Inputs given once for the whole batch get the sum of their gradients.
        if count == 1:
            summed = names  # one case: its gradients as numbers
        elif shared:
            summed = [name for name, shape in zip(names, shapes) if shape is not None and
                      (len(shape[0]) == 0 or shape[0][0] == 1)]
        else:
            summed = None
        # The core reads `columns`; the tensors themselves go through apply so
        # that autograd routes their gradients.
        call = (self, names, dict(zip(names, values)), shapes, count, batched, out_dtype, keep, summed)
        outputs = _ProgramFunction.apply(call, *[inputs[name] for name in names], *weights)
        return dict(zip(self.output_names, outputs))

    def __repr__(self):
        """The program and the current parameter values (nn.Module's own repr
        showed only "Parameter containing: [torch.DoubleTensor of size ]")."""
        shown = self.parameter_names[:20]
        current = self._values()
        values = ", ".join(f"{n}={v:.6g}" for n, v in zip(shown, current))
        if len(self.parameter_names) > len(shown):
            values += f", ... ({len(self.parameter_names)} in all)"
        flat = self._parameters.get("weights")
        dtype = str(flat.dtype).replace("torch.", "") if flat is not None else "float64"
        return (f"{type(self).__name__}(\n  program: {self._program!r}\n"
                f"  parameters ({dtype}): {values or 'none'}\n  errors={self.errors!r}, threads={self.threads}\n)")

    def program(self):
        """The program with the current parameter values."""
        from . import Program
        values = dict(zip(self.parameter_names, self._values()))
        return Program(self._core.with_parameters(values), reference=self._program._reference)

    def artifact(self):
        """The artifact JSON with the current (trained) parameter values."""
        return self.program().to_json()
