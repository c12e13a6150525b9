"""Importing torch for the PyTorch bridge, the Trainer and its distributed
training, with an error that says which interpreter is running and how to
get one with torch (a venv made by a `python3` without torch imports the
package fine and failed only here, with a bare "No module named 'torch'")."""
import sys


def missing_torch_message(what, error=None):
    """What to tell someone whose interpreter has no torch."""
    running = f"{sys.executable or 'this interpreter'} (Python {sys.version_info[0]}.{sys.version_info[1]})"
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        running += f", a venv made from the Python in {sys.base_prefix}"
    why = f" ({error})" if error is not None and str(error) != "No module named 'torch'" else ""
    return (f"{what} needs PyTorch, but torch is not installed for the Python running this: {running}{why}. "
            f"Two ways out: (1) use an interpreter that has torch. On Debian that is /usr/bin/python3 with the "
            f"package python3-torch (apt-get install python3-torch); make the venv from it, so that it sees "
            f"Debian's torch: `/usr/bin/python3 -m venv --system-site-packages .venv` "
            f"then `.venv/bin/pip install --no-build-isolation .` from the checkout. (2) install torch for this "
            f"interpreter where a package index is reachable: `{sys.executable or 'python'} -m pip install torch`, "
            f"or `pip install \"tensorcode[vec]\"` (the extra names torch and numpy).")


def require_torch(what):
    """The torch module, or ModuleNotFoundError (an ImportError) with missing_torch_message."""
    try:
        import torch
    except ImportError as e:
        raise ModuleNotFoundError(missing_torch_message(what, e), name="torch") from e
    return torch
