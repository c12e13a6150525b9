"""Trainer's progress bar in a notebook (issue 41): tqdm.auto's widget where
ipywidgets is installed, its text bar otherwise, and no "IProgress not found"
warning either way, also from a later `import torch` (which imports
tqdm.auto itself). Each case runs in a fresh interpreter that believes it is
a Jupyter kernel (IPython.get_ipython returns a shell whose config has an
IPKernelApp, the test tqdm.auto and the package make) with every warning
shown. ctest python.progress_text hides ipywidgets; python.progress_widget
needs it installed (Debian: python3-ipywidgets) and is SKIPPED otherwise."""
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import sys, warnings
if sys.argv[1] == "text":
    sys.modules["ipywidgets"] = None  # as if not installed
import IPython
class Shell:
    config = {"IPKernelApp": {}}
IPython.get_ipython = lambda: Shell()
import IPython.display
shown = []  # what the kernel would send to the front end
IPython.display.display = lambda *objects, **kw: shown.extend(objects)
warnings.simplefilter("always")
import tensorcode.program
import torch  # imports tqdm.auto (torch.hub): the warning came from here
from tensorcode.program import training
bar = training._Progress(4, True)._bar
bar.update(1)
bar.close()
print("SHOWN", *[type(o).__name__ for o in shown])
print("BAR", "widget" if any(c.__module__ == "tqdm.notebook" for c in type(bar).__mro__) else "text")
"""


def run(mode):
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True,
                         env=dict(os.environ), timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    bar = [line for line in lines if line.startswith("BAR ")][-1].split()[1]
    shown = [line for line in lines if line.startswith("SHOWN")][-1].split()[1:]
    return bar, shown, out.stderr


def test_without_ipywidgets_the_text_bar_and_no_warning():
    module, shown, err = run("text")
    assert module == "text" and shown == []
    assert "IProgress" not in err and "Warning" not in err, err
    assert "1/4" in err  # the text bar itself


def test_with_ipywidgets_the_widget_and_no_warning():
    ipywidgets = pytest.importorskip("ipywidgets")
    module, shown, err = run("widget")
    assert "Warning" not in err and "Error" not in err, err
    if int(ipywidgets.__version__.split(".")[0]) >= 7:
        assert module == "widget" and shown == ["HBox"]  # the widget, sent to the front end
    else:
        # Debian 12's ipywidgets 6.0 cannot draw tqdm's bar (no .style):
        # tqdm.auto picks the widget anyway and the bar raised AttributeError.
        assert module == "text" and shown == [] and "1/4" in err
