"""Why `from . import _core` failed, in words a user can act on.

When the extension file for this interpreter is missing, CPython reports
"cannot import name '_core' from partially initialized module ... (most
likely due to a circular import)", which points the wrong way. The usual
cause is an extension built for another Python (the build tree's
build/python serves whichever interpreter PYTHONPATH is given to), so this
names the interpreter that runs, the one the files present were built for,
and the command that builds the right one.
"""
import os
import pathlib
import re
import sys
import sysconfig

_SOURCE_MARKER = "pyproject.toml"


def _built_for(filename):
    """'_core.cpython-312-x86_64-linux-gnu.so' -> 'CPython 3.12'."""
    m = re.match(r"_core\.cpython-(\d)(\d+)([a-z]*)-", filename)
    if m:
        return f"CPython {m.group(1)}.{m.group(2)}{' (' + m.group(3) + ' build)' if m.group(3) else ''}"
    m = re.match(r"_core\.([a-z]+)-?(\d+)", filename)
    if m:
        return f"{m.group(1)} {m.group(2)}"
    return "an unknown interpreter"


def _rebuild_command(package_dir):
    """The command that builds the extension for this interpreter, from
    where the package sits: a CMake tree (its python/ folder) or a checkout."""
    exe = sys.executable
    for parent in package_dir.parents:
        cache = parent / "CMakeCache.txt"
        if cache.exists():
            source = None
            for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    source = line.split("=", 1)[1]
            source = source or "."
            return (f"{exe} -m pip install --no-build-isolation {source}   (or, for this tree: "
                    f"cmake -S {source} -B {parent} -DPython3_EXECUTABLE={exe} && "
                    f"cmake --build {parent} --target tc_python_core)")
        if (parent / _SOURCE_MARKER).exists() and (parent / "python" / "pep517").is_dir():
            return f"{exe} -m pip install --no-build-isolation {parent}"
    source = _installed_from()
    if source:
        return f"{exe} -m pip install --no-build-isolation {source}"
    return f"{exe} -m pip install --no-build-isolation /path/to/tensorcode (the source checkout)"


def _installed_from():
    """The checkout pip installed the package from (its direct_url.json), if any."""
    try:
        import importlib.metadata
        import json
        text = importlib.metadata.distribution("tensorcode").read_text("direct_url.json")
        url = json.loads(text or "{}").get("url", "")
    except Exception:  # noqa: BLE001 - no metadata: fall back to the generic command
        return None
    return url[len("file://"):] if url.startswith("file://") else None


def import_error(error, package_path):
    """An ImportError explaining `error` (raised by `from . import _core`),
    or None when the right extension file is there and `error` itself says
    what went wrong (an undefined symbol, a missing library)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    dirs = [pathlib.Path(p) for p in package_path]
    if any((d / f"_core{suffix}").exists() for d in dirs):
        return None
    present = sorted({f.name for d in dirs if d.is_dir() for f in d.iterdir()
                      if f.name.startswith("_core.") and f.suffix in (".so", ".pyd", ".dylib")})
    here = (f"CPython {sys.version.split()[0]} ({sys.executable}), which loads _core{suffix}")
    command = _rebuild_command(dirs[0].resolve() if dirs else pathlib.Path(os.getcwd()))
    where = ", ".join(str(d) for d in dirs)
    if present:
        found = "; ".join(f"{name} (built for {_built_for(name)})" for name in present)
        message = (f"tensorcode.program's extension was built for another Python: {where} has {found}, "
                   f"but this is {here}. Rebuild it for this interpreter: {command}")
    else:
        message = (f"tensorcode.program's extension _core{suffix} is not in {where} (this is {here}); "
                   f"build it for this interpreter: {command}")
    return ImportError(message, name="tensorcode.program._core")
