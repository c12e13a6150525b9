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


def in_notebook():
    """True inside a Jupyter kernel (tqdm.auto's own test: an IPython shell
    whose config has an IPKernelApp), where stderr is not a terminal but a
    bar still shows."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
        return shell is not None and "IPKernelApp" in shell.config
    except Exception:  # noqa: BLE001 - an unusual shell is not a notebook
        return False


def notebook_tqdm():
    """tqdm.auto's bar class, imported with its warnings silenced (None
    without tqdm): the widget bar where ipywidgets (7 or later) is installed,
    the text bar otherwise. Without ipywidgets tqdm.auto warns "IProgress not found" once,
    when it is first imported, as it falls back to the text bar, which is the
    bar wanted there; and `import torch` imports tqdm.auto (torch.hub), so a
    notebook showed that warning in the cell that first imported torch.
    Importing it here first, quietly, leaves nothing to warn about later."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from tqdm.auto import tqdm
    except ImportError:
        return None
    widget = any(c.__module__ == "tqdm.notebook" for c in tqdm.__mro__)
    if widget and not _widgets_draw_tqdm():
        from tqdm.std import tqdm
    return tqdm


def _widgets_draw_tqdm():
    """Whether the installed ipywidgets can draw tqdm's widget bar: it sets
    the bar's style, which ipywidgets has since 7. Debian 12's
    python3-ipywidgets is 6.0, with which tqdm.auto picks the widget anyway
    and creating the bar raises AttributeError ('FloatProgress' object has no
    attribute 'style'); the text bar is used there instead."""
    try:
        import ipywidgets
        return int(str(ipywidgets.__version__).split(".")[0]) >= 7
    except Exception:  # noqa: BLE001 - an unreadable version: not the widget
        return False


def quiet_tqdm_in_notebook():
    """Called when the package is imported: inside a Jupyter kernel, loads
    tqdm.auto quietly before anything (torch) loads it loudly."""
    if "tqdm.auto" not in sys.modules and in_notebook():
        notebook_tqdm()


def require_torch(what):
    """The torch module, or ModuleNotFoundError (an ImportError) with missing_torch_message."""
    try:
        import torch
    except ImportError as e:
        raise ModuleNotFoundError(missing_torch_message(what, e), name="torch") from e
    return torch
