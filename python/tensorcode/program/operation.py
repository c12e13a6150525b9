"""ProgramOperation: a torch operation over a stateless, call-free artifact
(pure replay of a fixed circuit with trainable parameters)."""
from . import Program
from .errors import ArtifactError
from .torch_module import TensorModule


def _program(artifact):
    if isinstance(artifact, Program):
        return artifact
    return Program.from_json(artifact)


class ProgramOperation(TensorModule):
    """op({input: tensor [B], 0-d tensor or number}) -> {output: tensor}, with
    the core's batched gradients; inputs, outputs, dtypes, `errors` and
    `threads` as TensorModule's, and the parameters exposed like its. Programs
    with state or host calls are refused when the operation is constructed."""

    def __init__(self, artifact, *, errors="raise", threads=1):
        program = _program(artifact)
        info = program._c.info()
        if info["state"]:
            raise ArtifactError(f"ProgramOperation needs a stateless program, but it has state "
                                f"'{info['state'][0][0]}': drive stateful programs with Runtime")
        if info["calls"]:
            raise ArtifactError(f"ProgramOperation needs a call-free program, but it calls "
                                f"'{info['calls'][0]}': host bindings cannot be replayed")
        super().__init__(program, errors=errors, threads=threads)
