"""Executes the docs' example notebook headless, as a reader's Jupyter would,
and checks what it shows (ctest python.notebook).

usage: run_notebook.py NOTEBOOK WORK_DIR

The notebook runs with `jupyter nbconvert --to notebook --execute` (Debian's
jupyter-nbconvert, python3-nbclient, python3-ipykernel) in a kernel of this
interpreter, importing the package from PYTHONPATH (the build tree). Then:
no cell may have an error output (a display method that raises shows up as
one, though the cell itself does not fail) or a warning on stderr, and every cell whose metadata
has `tensorcode.expect` must have an output of that MIME type containing
each of its strings: `image/svg+xml` or `text/html` with the circuit's node
names, `stream` for the progress bar. Exit 77 (ctest: SKIPPED) when jupyter,
torch or Graphviz is missing: the notebook's pictures are the point.
"""
import importlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

# The notebook must keep at least this many checked cells: dropping the
# metadata must not make the test pass by checking nothing.
MIN_CHECKED_CELLS = 10


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(77)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    notebook, work = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    for module, package in (("nbconvert", "jupyter-nbconvert"), ("nbclient", "python3-nbclient"),
                            ("ipykernel", "python3-ipykernel"), ("torch", "python3-torch")):
        try:
            importlib.import_module(module)
        except ImportError as e:
            skip(f"{module} is not importable ({e}); Debian: apt-get install {package}")
    if shutil.which("dot") is None:
        skip("Graphviz's dot is not installed; Debian: apt-get install graphviz")

    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    env = dict(os.environ)
    # Jupyter's and IPython's own files in the work folder, not the home directory.
    for var, sub in (("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTER_DATA_DIR", "data"), ("IPYTHONDIR", "ipython"),
                     ("JUPYTER_CONFIG_DIR", "config"), ("MPLCONFIGDIR", "mpl")):
        env[var] = str(work / sub)
    env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # ipykernel's debugger, quiet
    env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
    # The kernel of this interpreter (sys.executable), whatever kernels are installed.
    spec = work / "data" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        # -Xfrozen_modules=off: without it ipykernel's debugger warns on every start.
        "argv": [sys.executable, "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}))
    executed = work / "executed.ipynb"
    cmd = [sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=120",
           "--ExecutePreprocessor.kernel_name=python3", "--output", str(executed), str(notebook)]
    print("+", " ".join(cmd), flush=True)
    start = time.monotonic()
    done = subprocess.run(cmd, env=env, cwd=work, timeout=600)
    print(f"executed in {time.monotonic() - start:.1f} s", flush=True)
    if done.returncode != 0:
        print(f"FAILED: nbconvert exited {done.returncode}")
        return 1
    return check(json.loads(executed.read_text(encoding="utf-8")))


def texts(output, mime):
    """The text of `output` for `mime` ('stream' is stdout and stderr)."""
    if mime == "stream":
        if output.get("output_type") != "stream":
            return []
        text = output.get("text", "")
        return ["".join(text) if isinstance(text, list) else text]
    data = output.get("data", {}).get(mime)
    if data is None:
        return []
    return ["".join(data) if isinstance(data, list) else data]


def check(nb):
    failures, checked = [], 0
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        where = f"cell {index} ({source.splitlines()[0] if source else ''!r}...)"
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                failures.append(f"{where}: {out.get('ename')}: {out.get('evalue')}")
            # A warning on stderr is a blemish a reader sees (tqdm's "IProgress
            # not found" was one, printed by `import torch`).
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out.get("text", ""))
                if "Warning" in text or "IProgress" in text:
                    failures.append(f"{where}: a warning on stderr: {text.strip()[:200]!r}")
        expect = cell.get("metadata", {}).get("tensorcode", {}).get("expect")
        if not expect:
            continue
        checked += 1
        for rule in expect:
            found = [t for out in cell.get("outputs", []) for t in texts(out, rule["mime"])]
            if not found:
                kinds = sorted({k for out in cell.get("outputs", []) for k in out.get("data", {})} |
                               {out["output_type"] for out in cell.get("outputs", [])})
                failures.append(f"{where}: no {rule['mime']} output (it has {', '.join(kinds) or 'none'})")
                continue
            for s in rule["contains"]:
                if not any(s in t for t in found):
                    failures.append(f"{where}: no {rule['mime']} output contains {s!r}")
    if checked < MIN_CHECKED_CELLS:
        failures.append(f"only {checked} cells carry checks (tensorcode.expect); expected at least {MIN_CHECKED_CELLS}")
    for f in failures:
        print("FAILED:", f)
    print(f"{checked} checked cells, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
