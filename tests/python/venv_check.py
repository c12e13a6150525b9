"""ctest's checks of the pip routes (pyproject.toml, python/pep517), each in
fresh venvs made with `python -m venv --system-site-packages`:

  install BUILD_DIR WORK    pip install --no-build-isolation . reusing the
                            main build's tree (TC_CMAKE_BUILD_DIR: nothing of
                            the core may recompile), then the description's
                            validation command from the checkout:
                            .venv/bin/python -m pytest tests/test_program.py tests/training -q
                            (entry points collecting tests/python, all of it)
  wheel BUILD_DIR WORK      pip wheel --no-deps into one venv, the wheel
                            installed into a second; pip install -e . into a
                            third (the .py files from the checkout)
  other WORK                the same install for another CPython 3.9+ with
                            headers (the python3 on PATH when it is not this
                            one), building a tree of its own; exit 77 when
                            there is none

Runs with the interpreter the main build is for. Exit 77 (SKIPPED) only
when venv, pytest or (wheel: its mypy --strict step) mypy is missing;
pytest collecting nothing is a failure.
"""
import glob
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
SKIP = 77


def fail(message):
    print(f"FAILED: {message}", flush=True)
    sys.exit(1)


def clean_env(**extra):
    """No PYTHONPATH (the venv alone provides tensorcode), pip offline."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TC_CMAKE_BUILD_DIR", "PYTHONHOME")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(args, *, env, cwd=None, capture=False):
    print("+", " ".join(str(a) for a in args), flush=True)
    start = time.monotonic()
    r = subprocess.run([str(a) for a in args], env=env, cwd=str(cwd or ROOT), text=True,
                       stdout=subprocess.PIPE if capture else None, stderr=subprocess.STDOUT if capture else None)
    print(f"  ({time.monotonic() - start:.1f} s, exit {r.returncode})", flush=True)
    return r


def make_venv(python, where):
    shutil.rmtree(where, ignore_errors=True)
    r = run([python, "-m", "venv", "--system-site-packages", where], env=clean_env(), capture=True)
    if r.returncode != 0:
        print(r.stdout)
        print(f"SKIPPED: {python} -m venv does not work (Debian: apt-get install python3-venv)")
        sys.exit(SKIP)
    return pathlib.Path(where) / "bin" / "python"


def pip(venv_python, *args, env):
    r = run([venv_python, "-m", "pip", *args], env=env, capture=True)
    if r.returncode != 0:
        print(r.stdout)
        fail(f"pip {' '.join(args)} failed")
    return r.stdout


def check_no_core_recompiled(pip_output):
    """The backend ran the main tree's build: nothing but the extension may
    have been compiled there (it is up to date after the main build)."""
    for line in pip_output.splitlines():
        if "tensorcode build:" in line:
            print(" ", line.strip())
    compiled = [line.strip() for line in pip_output.splitlines()
                if "Building CXX object core/" in line or "Building C object core/" in line]
    if compiled:
        fail("pip install recompiled the core's objects in the main build (build it first, then install): "
             + "; ".join(compiled[:5]))
    if "tc_python_core up to date" not in pip_output:
        fail("the backend's build step did not report the extension up to date:\n" + pip_output)


def imported_from(venv_python, cwd):
    """(tensorcode.program's file, the extension's file) as the venv imports them."""
    code = "import tensorcode.program as p; print(p.__file__); print(p._core.__file__)"
    r = run([venv_python, "-c", code], env=clean_env(), cwd=cwd, capture=True)
    if r.returncode != 0:
        print(r.stdout)
        fail("the venv cannot import tensorcode.program")
    lines = r.stdout.strip().splitlines()
    return pathlib.Path(lines[-2]), pathlib.Path(lines[-1])


SMOKE = """
import tensorcode, tensorcode.program as tp
def choose(a):
    return 10 if a > 4 else 12
p = tp.compile(choose, inputs={"a": tp.int32(min=-128, max=127)})
assert p.run({"a": 5}) == {"result": 10.0}, p.run({"a": 5})
assert p.verify()["passed"]
print("smoke ok", tensorcode.__version__)
"""


def smoke(venv_python, cwd):
    (pathlib.Path(cwd) / "smoke.py").write_text(SMOKE, encoding="utf-8")
    r = run([venv_python, "smoke.py"], env=clean_env(), cwd=cwd, capture=True)
    print(r.stdout.strip())
    if r.returncode != 0 or "smoke ok" not in r.stdout:
        fail("the installed package does not compile and run a program")


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def inside(path, folder):
    return str(path.resolve()).startswith(str(pathlib.Path(folder).resolve()) + os.sep)


def cmd_install(build_dir, work):
    work = pathlib.Path(work)
    work.mkdir(parents=True, exist_ok=True)
    try:
        import pytest  # noqa: F401
    except ImportError:
        print("SKIPPED: pytest is not installed (Debian: python3-pytest)")
        return SKIP
    venv = work / ".venv"
    py = make_venv(sys.executable, venv)
    # With the extra when Debian's torch and numpy are there to satisfy it (offline).
    target = f"{ROOT}[vec]" if have("torch") and have("numpy") else str(ROOT)
    out = pip(py, "install", "-v", "--no-build-isolation", target, env=clean_env(TC_CMAKE_BUILD_DIR=build_dir))
    check_no_core_recompiled(out)
    package, extension = imported_from(py, work)
    if not inside(package, venv) or not inside(extension, venv):
        fail(f"the venv imports {package} and {extension}, not its own installed copy")
    print(f"  tensorcode.program from {package}")
    # The description's validation command, from the checkout's root.
    env = clean_env(TC_CLI=pathlib.Path(build_dir) / "bin" / "tensorcode")
    r = run([py, "-m", "pytest", "tests/test_program.py", "tests/training", "-q", "-rs", "-p", "no:cacheprovider"],
            env=env, cwd=ROOT, capture=True)
    print(r.stdout, flush=True)
    if r.returncode == 5:
        fail("pytest collected no tests")
    # The entry points must collect the whole suite, not a part of it.
    listed = run([py, "-m", "pytest", "tests/python", "--collect-only", "-q", "-p", "no:cacheprovider"], env=env,
                 cwd=ROOT, capture=True)
    whole = re.search(r"(\d+) tests? collected", listed.stdout)
    ran = sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|skipped|error|errors|xfailed|xpassed)\b",
                                         r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""))
    if whole is None or ran != int(whole.group(1)):
        fail(f"the validation command ran {ran} tests, but tests/python has "
             f"{whole.group(1) if whole else 'an unknown number of'}")
    summary = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    if r.returncode == 0 and re.search(r"\b\d+ skipped\b", summary):
        # As run_pytest.py: tests skipped inside a passing run are not a pass.
        print(f"SKIPPED: tests skipped inside the run ({summary.strip('= ')})")
        return SKIP
    return r.returncode


def cmd_wheel(build_dir, work):
    work = pathlib.Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = clean_env(TC_CMAKE_BUILD_DIR=build_dir)
    # pip wheel in one venv ...
    py_a = make_venv(sys.executable, work / "venv-a")
    out = pip(py_a, "wheel", "-v", "--no-build-isolation", "--no-deps", "-w", work / "dist", ROOT, env=env)
    check_no_core_recompiled(out)
    wheels = glob.glob(str(work / "dist" / "tensorcode-*.whl"))
    if len(wheels) != 1:
        fail(f"expected one wheel in {work / 'dist'}, found {wheels}")
    wheel = pathlib.Path(wheels[0])
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    if f"-{tag}-{tag}" not in wheel.name:
        fail(f"the wheel {wheel.name} is not tagged for this interpreter ({tag})")
    print(f"  built {wheel.name} ({wheel.stat().st_size // 1024} KiB)")
    # ... installed into a second, fresh one (no source tree, no build tree needed).
    py_b = make_venv(sys.executable, work / "venv-b")
    pip(py_b, "install", "--no-deps", wheel, env=clean_env())
    package, extension = imported_from(py_b, work)
    if not inside(package, work / "venv-b") or not inside(extension, work / "venv-b"):
        fail(f"the second venv imports {package} and {extension}, not the wheel's files")
    for typed in ("py.typed", "program/__init__.pyi", "program/_core.pyi"):
        if not (package.parent.parent / typed).exists():
            fail(f"the wheel lacks tensorcode/{typed}")
    smoke(py_b, work)
    mypy_missing = not have("mypy")
    if not mypy_missing:
        # The wheel's stubs as a user's mypy sees them (py.typed in site-packages).
        example = ROOT / "tests" / "python" / "typed_example.py"
        r = run([py_b, "-m", "mypy", "--strict", "--config-file", ROOT / "tests" / "python" / "mypy.ini",
                 "--cache-dir", work / "mypy-cache", example], env=clean_env(), cwd=work, capture=True)
        print(r.stdout.strip())
        if r.returncode != 0:
            fail("mypy --strict does not accept typed_example.py against the installed wheel's stubs")
    show = pip(py_b, "show", "tensorcode", env=clean_env())
    if "Name: tensorcode" not in show:
        fail("pip show tensorcode: " + show)
    # pip install -e: the package's .py files from the checkout, the extension from the tree.
    py_c = make_venv(sys.executable, work / "venv-e")
    out = pip(py_c, "install", "-v", "--no-build-isolation", "-e", ROOT, env=env)
    check_no_core_recompiled(out)
    package, extension = imported_from(py_c, work)
    if package.resolve() != (ROOT / "python" / "tensorcode" / "program" / "__init__.py").resolve():
        fail(f"the editable install imports {package}, not the checkout's python/tensorcode")
    if not inside(extension, build_dir):
        fail(f"the editable install loads the extension {extension}, not the one built in {build_dir}")
    smoke(py_c, work)
    if mypy_missing:
        # Everything else passed, but one check did not run: not a pass.
        print("SKIPPED: mypy is not installed (Debian: apt-get install mypy), so mypy --strict did not check "
              "typed_example.py against the installed wheel's stubs; the rest passed")
        return SKIP
    return 0


def other_interpreter():
    """A CPython 3.9+ with headers that is not this one: the python3 on PATH
    (pyenv here), else None."""
    mine = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    found = shutil.which("python3")
    if not found or os.path.realpath(found) == mine or os.path.realpath(found) == os.path.realpath(sys.executable):
        return None
    probe = ("import sys, sysconfig, os; "
             "print(sys.version_info >= (3, 9) and sys.implementation.name == 'cpython' and "
             "os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))")
    r = subprocess.run([found, "-c", probe], capture_output=True, text=True, env=clean_env())
    return found if r.stdout.strip() == "True" else None


def cmd_other(work):
    python = other_interpreter()
    if python is None:
        print(f"SKIPPED: no CPython 3.9+ with headers other than {sys.executable} on PATH")
        return SKIP
    work = pathlib.Path(work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    version = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0], sys.executable)"],
                             capture_output=True, text=True).stdout.strip()
    print(f"  the other interpreter: {python} ({version})")
    py = make_venv(python, work / ".venv")
    # No TC_CMAKE_BUILD_DIR: the backend builds a tree for this interpreter.
    out = pip(py, "install", "-v", "--no-build-isolation", ROOT, env=clean_env())
    for line in out.splitlines():
        if "tensorcode build:" in line:
            print(" ", line.strip())
    package, extension = imported_from(py, work)
    if not inside(extension, work / ".venv"):
        fail(f"the venv loads {extension}, not its installed extension")
    suffix = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))"],
                            capture_output=True, text=True).stdout.strip()
    if not extension.name.endswith(suffix):
        fail(f"the extension {extension.name} is not built for {python} ({suffix})")
    smoke(py, work)
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    mode = argv[1]
    if mode == "install" and len(argv) == 4:
        return cmd_install(argv[2], argv[3])
    if mode == "wheel" and len(argv) == 4:
        return cmd_wheel(argv[2], argv[3])
    if mode == "other" and len(argv) == 3:
        return cmd_other(argv[2])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
