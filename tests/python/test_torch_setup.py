"""The PyTorch side of a first day: an interpreter without torch is told
which it is and how to get one with torch; a module shows its program and
parameter values; Trainer's progress shows in a notebook."""
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from tensorcode.program import Builder  # noqa: E402
from tensorcode.program import training  # noqa: E402
from tensorcode.program.operation import ProgramOperation  # noqa: E402


def without_torch(code):
    """Runs `code` in this interpreter with torch made unimportable."""
    prelude = "import sys; sys.modules['torch'] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("code, what", [
    ("""
     from tensorcode.program import Builder
     b = Builder(); x = b.input("x"); b.build(x).to_tensor_module()
     """, "the PyTorch bridge"),
    ("from tensorcode.program.training import Trainer", "tensorcode.program.training (the Trainer"),
    ("from tensorcode.program.operation import ProgramOperation", "the PyTorch bridge"),
])
def test_without_torch_the_error_names_the_interpreter_and_the_ways_out(code, what):
    done = without_torch(code)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: ")
    assert what in last
    assert f"the Python running this: {sys.executable} (Python {sys.version_info[0]}.{sys.version_info[1]})" in last
    assert "/usr/bin/python3 -m venv --system-site-packages .venv" in last
    assert "-m pip install torch" in last and "tensorcode[vec]" in last


def test_the_import_error_is_an_import_error_named_torch():
    done = without_torch("""
        try:
            from tensorcode.program.training import Trainer
        except ImportError as e:
            print(type(e).__name__, e.name)
        """)
    assert done.stdout.strip() == "ModuleNotFoundError torch", done.stderr


def corrected():
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 0.5)
    c = b.parameter("c", -0.25)
    return b.build(w * x + c)


def test_a_module_shows_its_program_and_parameter_values():
    module = corrected().to_tensor_module()
    with torch.no_grad():
        module.parameter("w").fill_(2.0)
    text = repr(module)
    assert text.startswith("TensorModule(\n  program: <tensorcode Program: ")
    assert "parameters (float64): w=2, c=-0.25" in text
    op = ProgramOperation(corrected())
    assert "ProgramOperation(" in repr(op) and "w=0.5, c=-0.25" in repr(op)
    # Inside a composite module the child's repr is ours too.
    assert "w=2, c=-0.25" in repr(torch.nn.ModuleList([module]))


def test_progress_in_a_notebook_uses_tqdm_auto_and_keeps_the_bar(monkeypatch, capsys):
    pytest.importorskip("tqdm")
    b = Builder()
    x = b.input("x")
    w = b.parameter("w", 0.0)
    op = ProgramOperation(b.build(w * x))
    xs = torch.linspace(-1, 1, 16, dtype=torch.float64)
    monkeypatch.setattr(training, "_in_notebook", lambda: True)
    # progress=None: on in a notebook, though stderr is no terminal here.
    training.Trainer.from_ops(op, optimizer="sgd", lr=0.1).fit({"x": xs}, 2 * xs, epochs=2, batch_size=8)
    err = capsys.readouterr().err
    assert "4/4" in err and "batch" in err  # the finished bar stays (leave=True)
    monkeypatch.setattr(training, "_in_notebook", lambda: False)
    training.Trainer.from_ops(op, optimizer="sgd", lr=0.1).fit({"x": xs}, 2 * xs, epochs=2, batch_size=8)
    assert capsys.readouterr().err == ""  # not a terminal, not a notebook: nothing, as before
