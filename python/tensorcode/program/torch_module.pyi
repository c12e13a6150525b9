# Types of tensorcode.program.torch_module, the PyTorch bridge (imports torch).
from typing import Any, Dict, Mapping, Optional, Tuple, Union

import torch
from torch import nn

from . import Program

# One program parameter: a 0-d view of TensorModule.weights (not registered).
class ParameterView(nn.Parameter):
    # Its element of weights.grad; None zeroes the element.
    @property
    def grad(self) -> Optional[torch.Tensor]: ...
    @grad.setter
    def grad(self, value: Optional[torch.Tensor]) -> None: ...

class TensorModule(nn.Module):
    input_names: Tuple[str, ...]
    output_names: Tuple[str, ...]
    parameter_names: Tuple[str, ...]
    # One flat [n] parameter in the program's dtype; None without parameters.
    weights: Optional[nn.Parameter]
    errors: str
    threads: int
    def __init__(self, program: Program, *, errors: str = "raise", threads: int = 1) -> None: ...
    # {name with '.' written '/': view}
    @property
    def params(self) -> Mapping[str, ParameterView]: ...
    def parameter(self, name: str) -> ParameterView: ...
    # Per input a 1-D tensor [B], a 0-d tensor or a number; [B] outputs by name.
    def forward(self, inputs: Dict[str, Union[torch.Tensor, float]]) -> Dict[str, torch.Tensor]: ...
    def program(self) -> Program: ...
    def artifact(self) -> str: ...
