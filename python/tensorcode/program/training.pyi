# Types of tensorcode.program.training, the Trainer (imports torch).
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

import torch
from torch import nn

from .operation import ProgramOperation as ProgramOperation

__all__ = ["Trainer"]

_Loss = Union[str, Callable[[Any, Any], torch.Tensor]]
_Optimizer = Union[str, type, torch.optim.Optimizer]

class Trainer:
    model: nn.Module
    optimizer: torch.optim.Optimizer
    def __init__(self, model: nn.Module, *, loss: _Loss = "mse", optimizer: _Optimizer = "adam",
                 lr: Optional[float] = None, optimizer_options: Optional[Mapping[str, Any]] = None,
                 distributed: bool = False, progress: Optional[bool] = None) -> None: ...
    @classmethod
    def from_ops(cls, ops: Union[ProgramOperation, Iterable[ProgramOperation]], *,
                 forward: Optional[Callable[[Dict[str, torch.Tensor]], Any]] = None,
                 modules: Union[nn.Module, Iterable[nn.Module]] = (), output: Optional[str] = None,
                 loss: _Loss = "mse", optimizer: _Optimizer = "adam", lr: Optional[float] = None,
                 optimizer_options: Optional[Mapping[str, Any]] = None, distributed: bool = False,
                 progress: Optional[bool] = None) -> Trainer: ...
    # inputs: {name: tensor/numpy column/list} (with targets) or a DataLoader
    # of (inputs, targets) pairs; returns {"loss": [mean loss per epoch]}.
    def fit(self, inputs: Any, targets: Any = None, *, epochs: int = 1, batch_size: int = 32, shuffle: bool = True,
            seed: int = 0) -> Dict[str, List[float]]: ...
    @property
    def ops(self) -> List[ProgramOperation]: ...
    def artifacts(self) -> List[str]: ...
