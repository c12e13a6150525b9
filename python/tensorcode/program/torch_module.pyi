# Types of tensorcode.program.torch_module, the PyTorch bridge (imports torch).
from typing import Any, Dict, Mapping, Tuple, Union

import torch
from torch import nn

from . import Program

class TensorModule(nn.Module):
    input_names: Tuple[str, ...]
    output_names: Tuple[str, ...]
    parameter_names: Tuple[str, ...]
    params: nn.ParameterDict
    errors: str
    threads: int
    def __init__(self, program: Program, *, errors: str = "raise", threads: int = 1) -> None: ...
    def parameter(self, name: str) -> nn.Parameter: ...
    # Per input a 1-D tensor [B], a 0-d tensor or a number; [B] outputs by name.
    def forward(self, inputs: Dict[str, Union[torch.Tensor, float]]) -> Dict[str, torch.Tensor]: ...
    def program(self) -> Program: ...
    def artifact(self) -> str: ...
