# Rich display (display.py): checked against the module by ctest python.stubtest.
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import Program
from . import _core

DRAWN_LIMIT: int
GROUP_LIMIT: int
GROUP_SPLIT: int
LEAF_EDGES: int
DOT_TIMEOUT: int
TEXT_LINES: int

def svg_of(dot_text: str) -> Tuple[Optional[str], Optional[str]]: ...

class Inspection:
    program: Program
    inputs: Dict[str, float]
    params: Dict[str, float]
    semantics: str
    values: List[Optional[float]]
    branch: List[int]
    outputs: Optional[Dict[str, float]]
    error: Optional[Dict[str, Any]]
    output: Optional[str]
    adjoints: Optional[List[Optional[float]]]
    gradients: Optional[Dict[str, float]]
    gradient_error: Optional[Dict[str, Any]]
    gradient_values: Optional[List[Optional[float]]]
    def __init__(self, program: Program, core: _core.Program, inputs: Mapping[str, float], *,
                 semantics: Optional[str] = None, output: Optional[str] = None,
                 params: Optional[Mapping[str, float]] = None, gradients: bool = True) -> None: ...
    @property
    def failed_node(self) -> Optional[int]: ...
    def summary(self) -> str: ...
    def dot(self) -> str: ...

class VerificationReport(Dict[str, Any]): ...

TIMELINE_SERIES: int
TIMELINE_POINTS: int

class ReplayLog(List[Dict[str, Any]]): ...
