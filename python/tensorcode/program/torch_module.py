"""The PyTorch bridge: a program as a torch.nn.Module (imported only by
Program.to_tensor_module() and tensorcode.program.operation).

Forward values and gradients come from the core's checked evaluator and
reverse mode, in the program's own semantics (exact, relaxed, hybrid); torch
only carries them. It is not a vectorised or CUDA version of the circuit:
every input is a scalar.
"""
import torch
from torch import nn


def _scalar(name, value):
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(f"input '{name}' is a tensor with {value.numel()} elements: select scalar values "
                             "(one element per input); this API is not a general tensor compiler")
        return value
    if isinstance(value, (bool, int, float)):
        return torch.tensor(float(value), dtype=torch.float64)
    raise TypeError(f"input '{name}' must be a scalar tensor or a number, not {type(value).__name__}")


class _ProgramFunction(torch.autograd.Function):
    """Outputs of the circuit; backward asks the core for the VJP."""

    @staticmethod
    def forward(ctx, core, input_names, param_names, *values):
        n = len(input_names)
        inputs = {k: float(v) for k, v in zip(input_names, values[:n])}
        params = {k: float(v) for k, v in zip(param_names, values[n:])}
        outputs, _ = core.forward_backward(inputs, params, None)
        ctx.core = core
        ctx.inputs = inputs
        ctx.params = params
        ctx.names = (input_names, param_names)
        ctx.shapes = [(v.shape, v.dtype) for v in values]
        return tuple(torch.tensor(o, dtype=torch.float64) for o in outputs)

    @staticmethod
    def backward(ctx, *grad_outputs):
        seeds = [0.0 if g is None else float(g) for g in grad_outputs]
        _, (grad_in, grad_param) = ctx.core.forward_backward(ctx.inputs, ctx.params, seeds)
        input_names, param_names = ctx.names
        grads = []
        for i, name in enumerate(list(input_names) + list(param_names)):
            table = grad_in if i < len(input_names) else grad_param
            g = table.get(name)
            shape, dtype = ctx.shapes[i]
            grads.append(None if g is None else torch.tensor(g, dtype=dtype).reshape(shape))
        return (None, None, None, *grads)


class TensorModule(nn.Module):
    """A program as a module. Its parameters are the program's parameters as
    float64 nn.Parameters (in `params`, keyed by name with '.' written as '/'),
    so native optimizers and state_dict work. forward(dict of scalar tensors)
    returns a dict of 0-d float64 tensors by output name."""

    def __init__(self, program):
        super().__init__()
        from . import Program
        if not isinstance(program, Program):
            raise TypeError(f"expected a tensorcode.program.Program, not {type(program).__name__}")
        info = program._c.info()
        self._program = program
        self._core = program._c
        self.input_names = tuple(name for name, _, _ in info["inputs"])
        self.output_names = tuple(info["outputs"])
        self.parameter_names = tuple(name for name, _ in info["parameters"])
        self.params = nn.ParameterDict()
        self._keys = {}
        for index, (name, value) in enumerate(info["parameters"]):
            key = name.replace(".", "/")
            if not key or key in self.params or hasattr(self.params, key):
                key = f"p{index}/{key}"
            self._keys[name] = key
            self.params[key] = nn.Parameter(torch.tensor(float(value), dtype=torch.float64))

    def parameter(self, name):
        """The nn.Parameter of the program parameter `name`."""
        try:
            return self.params[self._keys[name]]
        except KeyError:
            raise KeyError(f"the program has no parameter '{name}'") from None

    def forward(self, inputs):
        if not isinstance(inputs, dict):
            raise TypeError(f"forward() takes a dict of input tensors, not {type(inputs).__name__}")
        # Missing and unknown names are the core's to report.
        names = tuple(inputs)
        values = [_scalar(name, inputs[name]) for name in names]
        weights = [self.params[self._keys[n]] for n in self.parameter_names]
        outputs = _ProgramFunction.apply(self._core, names, self.parameter_names, *values, *weights)
        return dict(zip(self.output_names, outputs))

    def program(self):
        """The program with the current parameter values."""
        from . import Program
        values = {n: float(self.params[self._keys[n]].detach()) for n in self.parameter_names}
        return Program(self._core.with_parameters(values), reference=self._program._reference)

    def artifact(self):
        """The artifact JSON with the current (trained) parameter values."""
        return self.program().to_json()
