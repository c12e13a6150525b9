"""The PEP 517 / PEP 660 build backend of the tensorcode Python package.

In-tree (pyproject.toml: backend-path) and dependency-free, so that
`pip install --no-build-isolation .` works offline with nothing but the
interpreter running pip: setuptools' wheel building needs the `wheel`
package, which pyenv's interpreters lack, and scikit-build-core is not in
Debian 12. The wheel format is a zip file with three metadata files, which
this module writes itself.

The extension `tensorcode.program._core` is the CMake target
`tc_python_core`, built for the interpreter running pip:

- TC_CMAKE_BUILD_DIR names an existing (or new) CMake tree to build it in,
  e.g. the main build (`TC_CMAKE_BUILD_DIR=build`); its Python must be ABI
  compatible with this interpreter;
- otherwise a tree per interpreter, build-pip-<tag>-<id> next to build/
  (in ~/.cache/tensorcode, else the temporary folder, when the checkout
  cannot be written).
  It is one folder deep like build/, so with ccache as the launcher and
  CCACHE_BASEDIR at the source root the core's objects are the main build's
  cache entries (ccache rewrites absolute paths relative to the build folder,
  and a different depth would give different compiler command lines).

Only that target and the core libraries it links are built (no IDE, no
Vulkan, no tests); an existing tree rebuilds only what changed.
"""
import base64
import hashlib
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_SOURCE = ROOT / "python" / "tensorcode"
NAME = "tensorcode"
TARGET = "tc_python_core"
# The CMake options of a tree that builds only the extension; none needs Qt,
# Vulkan or a test framework.
EXTENSION_ONLY = ["-DTC_BUILD_IDE=OFF", "-DTC_ENABLE_VULKAN=OFF", "-DTC_BUILD_TESTS=OFF",
                  "-DTC_BUILD_BENCH=OFF", "-DTC_BUILD_FUZZERS=OFF", "-DTC_SANITIZE=OFF",
                  "-DTC_BUILD_PYTHON=ON"]


class BuildError(RuntimeError):
    pass


def _log(message):
    print(f"tensorcode build: {message}", file=sys.stderr, flush=True)


# --- metadata ---------------------------------------------------------------

def version():
    """The package version: python/tensorcode/__init__.py's __version__, the
    only place it is written."""
    text = (PACKAGE_SOURCE / "__init__.py").read_text(encoding="utf-8")
    m = re.search(r'^__version__ = "([^"]+)"$', text, re.M)
    if not m:
        raise BuildError(f"no __version__ = \"...\" line in {PACKAGE_SOURCE / '__init__.py'}")
    return m.group(1)


def read_pyproject(text):
    """The subset of TOML pyproject.toml uses: [tables], key = "string",
    key = ["strings", ...] (also over several lines), key = true/false and
    comments. Python 3.9 and 3.10 have no tomllib; tests compare this with
    tomllib on 3.11."""
    data = {}
    table = data
    pending = None  # (key, text so far) of an array spanning lines
    for raw in text.splitlines():
        line = _strip_comment(raw).strip()
        if pending is not None:
            key, acc = pending
            acc += " " + line
            if _closes_array(acc):
                table[key] = _value(acc)
                pending = None
            else:
                pending = (key, acc)
            continue
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]") or line.startswith("[["):
                raise BuildError(f"pyproject.toml: unsupported table line {raw!r}")
            table = data
            for part in line[1:-1].strip().split("."):
                table = table.setdefault(part.strip().strip('"'), {})
            continue
        key, sep, rest = line.partition("=")
        if not sep:
            raise BuildError(f"pyproject.toml: expected key = value, got {raw!r}")
        key, rest = key.strip().strip('"'), rest.strip()
        if rest.startswith("[") and not _closes_array(rest):
            pending = (key, rest)
        else:
            table[key] = _value(rest)
    if pending is not None:
        raise BuildError(f"pyproject.toml: array of '{pending[0]}' is not closed")
    return data


def _strip_comment(line):
    out, quote = [], None
    for ch in line:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        out.append(ch)
    return "".join(out)


def _closes_array(text):
    return text.rstrip().endswith("]")


def _value(text):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("["):
        inner = text[1:-1]
        return [_value(item) for item in re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'', inner)]
    if (text.startswith('"') and text.endswith('"')) or (text.startswith("'") and text.endswith("'")):
        body = text[1:-1]
        return body.encode("utf-8").decode("unicode_escape") if text[0] == '"' else body
    raise BuildError(f"pyproject.toml: unsupported value {text!r}")


def _project():
    return read_pyproject((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def metadata_text():
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {version()}",
             f"Summary: {p['description']}"]
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    for dep in p.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        for dep in deps:
            lines.append(f'Requires-Dist: {dep}; extra == "{extra}"')
    for label, url in p.get("urls", {}).items():
        lines.append(f"Project-URL: {label}, {url}")
    return "\n".join(lines) + "\n"


def wheel_tag():
    """cpXY-cpXY-<platform>: the extension is built for this interpreter."""
    if sys.implementation.name != "cpython":
        raise BuildError(f"the extension is built for CPython, not {sys.implementation.name}")
    soabi = sysconfig.get_config_var("SOABI") or ""  # cpython-311-x86_64-linux-gnu
    parts = soabi.split("-")
    if len(parts) < 2 or parts[0] != "cpython":
        raise BuildError(f"unexpected SOABI {soabi!r}")
    interpreter = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-cp{parts[1]}-{platform}"


def _dist_info():
    return f"{NAME}-{version()}.dist-info"


def _dist_info_files(tag):
    wheel = f"Wheel-Version: 1.0\nGenerator: tensorcode_backend\nRoot-Is-Purelib: false\nTag: {tag}\n"
    return {"METADATA": metadata_text(), "WHEEL": wheel}


def _write_metadata_dir(metadata_directory):
    d = pathlib.Path(metadata_directory) / _dist_info()
    d.mkdir(parents=True, exist_ok=True)
    for name, text in _dist_info_files(wheel_tag()).items():
        (d / name).write_text(text, encoding="utf-8")
    return d.name


# --- the extension ----------------------------------------------------------

def _base_interpreter():
    """The interpreter behind a venv: the one whose headers the extension
    compiles against, spelled /usr/bin/python3 when it is Debian's so that a
    tree configured here has the main build's compiler flags (the core's
    verify library records the interpreter's path)."""
    # sys.base_prefix is the base installation also in a venv (3.9's
    # sys._base_executable is still the venv's own python there).
    base = os.path.join(sys.base_prefix, "bin", f"python{sys.version_info[0]}.{sys.version_info[1]}")
    if not os.path.exists(base):
        base = getattr(sys, "_base_executable", None) or sys.executable
    if not os.path.exists(base):
        base = sys.executable
    debian = "/usr/bin/python3"
    try:
        if os.path.exists(debian) and os.path.samefile(base, debian):
            return debian
    except OSError:
        pass
    return base


def _require_tools():
    missing = []
    cmake = shutil.which(os.environ.get("CMAKE", "cmake"))
    if not cmake:
        missing.append("cmake (3.25 or newer)")
    if not shutil.which("ninja"):
        missing.append("ninja")
    cxx = os.environ.get("CXX", "c++")
    if not shutil.which(cxx.split()[0]):
        missing.append(f"a C++20 compiler ({cxx})")
    if missing:
        raise BuildError("building the extension tensorcode.program._core needs " + ", ".join(missing)
                         + "; on Debian: apt-get install cmake ninja-build g++ "
                         "(and the libraries installer/install-deps.sh lists)")
    out = subprocess.run([cmake, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(\d+)\.(\d+)", out)
    if m and (int(m.group(1)), int(m.group(2))) < (3, 25):
        raise BuildError(f"cmake {m.group(0)} is too old: the project needs 3.25 or newer")
    return cmake


def _cache(tree):
    cache = pathlib.Path(tree) / "CMakeCache.txt"
    values = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
            m = re.match(r"^([A-Za-z0-9_.-]+):[A-Z]+=(.*)$", line)
            if m:
                values[m.group(1)] = m.group(2)
    return values


def _writable(folder):
    """Whether files can be made in `folder` (made when missing). Tried, not
    asked of os.access, which says yes to root on a read-only file system."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def _tree_for_this_interpreter():
    ident = hashlib.sha256(os.path.realpath(_base_interpreter()).encode()).hexdigest()[:8]
    name = f"build-pip-cp{sys.version_info[0]}{sys.version_info[1]}-{ident}"
    if _writable(ROOT / name):
        return ROOT / name
    # A checkout that cannot be written (a read-only mount, a package store):
    # the tree goes to the user's cache, else the temporary folder, one per
    # checkout and interpreter, kept for the next install.
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:8]
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    places = [pathlib.Path(cache_home) / "tensorcode",
              pathlib.Path(tempfile.gettempdir()) / f"tensorcode-{os.getuid() if hasattr(os, 'getuid') else 'user'}"]
    for place in places:
        tree = place / f"{name}-{checkout}"
        if _writable(tree):
            _log(f"{ROOT} cannot be written: building in {tree} (TC_CMAKE_BUILD_DIR picks another folder)")
            return tree
    raise BuildError(f"no folder to build the extension in: {ROOT} cannot be written, nor can "
                     f"{' or '.join(str(p) for p in places)}; set TC_CMAKE_BUILD_DIR to a folder that can")


def _configure(cmake, tree):
    args = [cmake, "-S", str(ROOT), "-B", str(tree), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={_base_interpreter()}", *EXTENSION_ONLY]
    if shutil.which("ccache"):
        args += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
    _run(args)


def _run(args):
    _log(" ".join(args))
    env = dict(os.environ)
    env.setdefault("CCACHE_BASEDIR", str(ROOT))
    result = subprocess.run(args, env=env, stdout=sys.stderr, stderr=sys.stderr)
    if result.returncode != 0:
        raise BuildError(f"'{' '.join(args)}' failed (exit {result.returncode}); its output is above")


def build_extension():
    """Builds tc_python_core and returns the path of the extension file."""
    cmake = _require_tools()
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    named = os.environ.get("TC_CMAKE_BUILD_DIR")
    tree = pathlib.Path(named).resolve() if named else _tree_for_this_interpreter()
    if named and not _writable(tree):
        raise BuildError(f"TC_CMAKE_BUILD_DIR={named}: {tree} cannot be written (CMake builds there); "
                         "name a folder that can, or unset it")
    cache = _cache(tree)
    configured_for = cache.get("Python3_EXECUTABLE", "")
    if not cache or (not named and configured_for != _base_interpreter()):
        # New, or a tree of this interpreter configured through a path that
        # changed (a deleted venv's python): configure it for the base one.
        _log(f"configuring {tree} for {_base_interpreter()}")
        _configure(cmake, tree)
        cache = _cache(tree)
    elif cache.get("TC_BUILD_PYTHON", "ON").upper() in ("OFF", "0", "FALSE", "NO"):
        raise BuildError(f"the CMake tree {tree} has TC_BUILD_PYTHON=OFF, so it cannot build the extension")
    built = tree / "python" / "tensorcode" / "program" / f"_core{suffix}"
    if not built.exists() and _extensions_in(built.parent):
        raise _other_interpreter(tree, cache, built)  # before building anything there
    jobs = os.environ.get("TC_BUILD_JOBS") or os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
    start = time.monotonic()
    _run([cmake, "--build", str(tree), "--target", TARGET, "-j", jobs])
    _log(f"{TARGET} up to date in {time.monotonic() - start:.1f} s ({tree})")
    if not built.exists():
        raise _other_interpreter(tree, cache, built)
    return built


def _extensions_in(folder):
    return sorted(p.name for p in folder.glob("_core.*") if p.suffix in (".so", ".pyd"))


def _other_interpreter(tree, cache, built):
    others = _extensions_in(built.parent)
    return BuildError(
        f"the CMake tree {tree} builds the extension for {cache.get('Python3_EXECUTABLE', 'another Python')} "
        f"({', '.join(others) or 'no _core file'}), not for {sys.executable} "
        f"(Python {sys.version.split()[0]}, which loads {built.name}); unset TC_CMAKE_BUILD_DIR to build a tree "
        f"for this interpreter, or configure that tree with -DPython3_EXECUTABLE={_base_interpreter()}")


# --- wheels -----------------------------------------------------------------

def _package_files():
    """(path in the wheel, file) for the pure-Python side: .py, .pyi, py.typed."""
    for path in sorted(PACKAGE_SOURCE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and (
                path.suffix in (".py", ".pyi") or path.name == "py.typed"):
            yield f"{NAME}/{path.relative_to(PACKAGE_SOURCE).as_posix()}", path


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory, entries):
    """entries: (name in the wheel, bytes). Adds the dist-info and RECORD."""
    tag = wheel_tag()
    dist_info = _dist_info()
    entries = list(entries) + [(f"{dist_info}/{k}", v.encode()) for k, v in _dist_info_files(tag).items()]
    filename = f"{NAME}-{version()}-{tag}.whl"
    record = [_record_line(name, data) for name, data in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    target = pathlib.Path(wheel_directory) / filename
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    _log(f"wrote {target}")
    return filename


def _editable_finder(extension):
    """The module an editable install imports at start-up (from its .pth
    file): `tensorcode` comes from the source tree, `tensorcode.program._core`
    from the CMake tree that built it. Appended to sys.meta_path, so a
    tensorcode earlier on sys.path (PYTHONPATH=build/python) still wins."""
    return f'''"""Editable install of tensorcode: the package from {PACKAGE_SOURCE},
the extension from {extension.parent}."""
import importlib.machinery
import importlib.util
import os
import sys

SOURCE = {str(PACKAGE_SOURCE)!r}
EXTENSION = {str(extension)!r}


class TensorcodeEditableFinder:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "tensorcode":
            return importlib.util.spec_from_file_location(
                fullname, os.path.join(SOURCE, "__init__.py"), submodule_search_locations=[SOURCE])
        if fullname == "tensorcode.program._core" and os.path.exists(EXTENSION):
            return importlib.util.spec_from_file_location(
                fullname, EXTENSION, loader=importlib.machinery.ExtensionFileLoader(fullname, EXTENSION))
        return None


if not any(getattr(f, "__name__", "") == "TensorcodeEditableFinder" for f in sys.meta_path):
    sys.meta_path.append(TensorcodeEditableFinder)
'''


# --- PEP 517 / PEP 660 hooks ---------------------------------------------------

def _reported(hook):
    """A BuildError ends the hook with its message alone (pip shows the
    hook's output), not with a traceback of this module."""
    def run_hook(*args, **kwargs):
        try:
            return hook(*args, **kwargs)
        except BuildError as e:
            print(f"error: {e}", file=sys.stderr, flush=True)
            raise SystemExit(1) from None
    run_hook.__name__ = hook.__name__
    run_hook.__doc__ = hook.__doc__
    return run_hook


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


@_reported
def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata_dir(metadata_directory)


@_reported
def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata_dir(metadata_directory)


@_reported
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    extension = build_extension()
    entries = [(name, path.read_bytes()) for name, path in _package_files()]
    entries.append((f"{NAME}/program/{extension.name}", extension.read_bytes()))
    return _write_wheel(wheel_directory, entries)


@_reported
def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    extension = build_extension()
    entries = [("_tensorcode_editable.py", _editable_finder(extension).encode()),
               ("_tensorcode_editable.pth", b"import _tensorcode_editable\n")]
    return _write_wheel(wheel_directory, entries)


def _sdist_files():
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
        names = [n for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        skip = re.compile(r"^(build[^/]*|\.git|node_modules|\.cache)(/|$)")
        names = [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*") if p.is_file()]
        names = [n for n in names if not skip.match(n) and "__pycache__" not in n]
    return sorted(n for n in names if (ROOT / n).is_file())


@_reported
def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{version()}"
    target = pathlib.Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(target, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for name in _sdist_files():
            tf.add(str(ROOT / name), arcname=f"{base}/{name}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = metadata_text().encode()
        info.size, info.mtime, info.mode = len(data), 1577836800, 0o644
        tf.addfile(info, io.BytesIO(data))
    return target.name
