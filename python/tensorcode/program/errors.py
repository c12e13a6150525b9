"""The exceptions of tensorcode.program. Messages are the core's messages."""


class _Located:
    """Location attributes shared by the errors (None when unknown)."""

    line = None
    column = None
    node = None
    message = None


class CompileError(_Located, ValueError):
    """The source or the Builder program was rejected; .line and .column locate it."""


class EvaluationError(_Located, ArithmeticError):
    """A checked evaluation failed (NaN, division by zero, a value outside its
    domain, a failing binding, ...); .node is the failing node and .line/.column
    its source location when known."""


class ArtifactError(_Located, ValueError):
    """An artifact or snapshot could not be loaded."""


class VerificationError(_Located, Exception):
    """Verification could not run, or verified_replacement refused a candidate."""
