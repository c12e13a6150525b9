# Types of tensorcode.program.operation (imports torch).
from typing import Any, Mapping, Union

from . import Program
from .torch_module import TensorModule

class ProgramOperation(TensorModule):
    def __init__(self, artifact: Union[Program, str, bytes, bytearray, Mapping[str, Any]], *, errors: str = "raise",
                 threads: int = 1) -> None: ...
