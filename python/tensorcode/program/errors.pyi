# Types of tensorcode.program.errors. The location attributes are None when
# the core does not know them.
from typing import Optional

class _Located:
    line: Optional[int]
    column: Optional[int]
    node: Optional[int]
    message: Optional[str]

class CompileError(_Located, ValueError): ...
class EvaluationError(_Located, ArithmeticError): ...
class ArtifactError(_Located, ValueError): ...
class VerificationError(_Located, Exception): ...
