"""ctest's checks of the package's types with Debian's mypy; exit 77
(SKIPPED) when mypy is not installed.

  run_typing.py stubtest CACHE_DIR   mypy's stubtest: the .pyi stubs against the
                                     imported package (names, signatures)
  run_typing.py strict CACHE_DIR     mypy --strict on typed_example.py, then runs it
"""
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
CONFIG = HERE / "mypy.ini"

try:
    import mypy  # noqa: F401
except ImportError as e:
    print(f"SKIPPED: mypy is not importable ({e}); Debian: apt-get install mypy")
    sys.exit(77)

if len(sys.argv) != 3 or sys.argv[1] not in ("stubtest", "strict"):
    print(__doc__)
    sys.exit(2)
mode, cache = sys.argv[1], sys.argv[2]
# Absolute import paths: mypy reports a module found through a relative and an
# absolute entry as two modules.
env = dict(os.environ)
env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)
os.makedirs(cache, exist_ok=True)

if mode == "stubtest":
    cmd = [sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(CONFIG),
           "--allowlist", str(HERE / "stubtest_allowlist.txt"), "tensorcode"]
    without_torch = False
    try:
        import torch  # noqa: F401
    except ImportError:
        # The bridge's modules import torch: without it they cannot be
        # compared. The rest still is, and a failure there fails; a pass
        # reports SKIPPED, since three modules went unchecked.
        without_torch = True
        skipped = os.path.join(cache, "allowlist_without_torch.txt")
        with open(skipped, "w", encoding="utf-8") as f:
            for module in ("torch_module", "operation", "training"):
                f.write(f"tensorcode.program.{module}\n")
        cmd[-1:-1] = ["--allowlist", skipped]
    print("+", " ".join(cmd), flush=True)
    rc = subprocess.run(cmd, env=env, cwd=cache).returncode
    if rc == 0 and without_torch:
        print("SKIPPED: torch is not importable, so tensorcode.program.torch_module, operation and training "
              "were not compared with their stubs (the rest passed)")
        sys.exit(77)
    sys.exit(rc)

example = HERE / "typed_example.py"
cmd = [sys.executable, "-m", "mypy", "--strict", "--config-file", str(CONFIG), "--cache-dir",
       os.path.join(cache, "mypy"), str(example)]
print("+", " ".join(cmd), flush=True)
rc = subprocess.run(cmd, env=env, cwd=cache).returncode
if rc != 0:
    sys.exit(rc)
print("+", sys.executable, example, flush=True)
sys.exit(subprocess.run([sys.executable, str(example)], env=env, cwd=cache).returncode)
