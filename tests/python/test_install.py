"""The package as pip installs it: the version, the files a wheel needs, and
the message when the extension was built for another interpreter."""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

import tensorcode
import tensorcode.program as tp
from conftest import CLI

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python" / "pep517"))
import tensorcode_backend  # noqa: E402


def test_version_is_the_backends_and_the_clis():
    assert tensorcode.__version__ == tensorcode_backend.version()
    if os.path.exists(CLI):
        out = subprocess.run([CLI, "--version"], capture_output=True, text=True, check=True).stdout
        assert out.split() == ["tensorcode", tensorcode.__version__]


def test_the_package_is_typed():
    package = pathlib.Path(tensorcode.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "program" / "__init__.pyi").exists()
    assert (package / "program" / "_core.pyi").exists()


def test_pyproject_reader_agrees_with_tomllib():
    tomllib = pytest.importorskip("tomllib")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert tensorcode_backend.read_pyproject(text) == tomllib.loads(text)


def test_metadata_declares_the_vec_extra():
    meta = tensorcode_backend.metadata_text()
    assert "Name: tensorcode\n" in meta
    assert f"Version: {tensorcode.__version__}\n" in meta
    assert "Provides-Extra: vec\n" in meta
    assert 'Requires-Dist: torch; extra == "vec"\n' in meta
    assert 'Requires-Dist: numpy; extra == "vec"\n' in meta


def test_wheel_tag_is_this_interpreters():
    tag = tensorcode_backend.wheel_tag()
    py = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert tag.startswith(f"{py}-{py}")


def _copy_package(tmp_path, rename_to=None):
    """A copy of the imported package whose extension is renamed (another
    interpreter's ABI tag) or removed."""
    src = pathlib.Path(tensorcode.__file__).parent
    dst = tmp_path / "site" / "tensorcode"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    program = dst / "program"
    built = list(program.glob("_core.*"))
    if not built:  # an editable install: the extension is in its CMake tree
        built = [program / pathlib.Path(tp._core.__file__).name]
        shutil.copy(tp._core.__file__, built[0])
    for f in built:
        if rename_to:
            f.rename(program / rename_to)
        else:
            f.unlink()
    return tmp_path / "site"


def _import_in(site):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    # -S: no site-packages, so no installed tensorcode (or editable finder) competes with the copy.
    return subprocess.run([sys.executable, "-S", "-c", "import tensorcode.program"], capture_output=True,
                          text=True, env=env, cwd=str(site))


def test_an_extension_for_another_python_names_both_versions_and_the_fix(tmp_path):
    other = "_core.cpython-39-x86_64-linux-gnu.so" if sys.version_info[:2] != (3, 9) else \
        "_core.cpython-312-x86_64-linux-gnu.so"
    result = _import_in(_copy_package(tmp_path, rename_to=other))
    assert result.returncode != 0
    err = result.stderr
    assert "circular import" not in err and "partially initialized" not in err
    assert "ImportError: tensorcode.program's extension was built for another Python" in err
    assert other in err
    assert ("built for CPython 3.9" in err) or ("built for CPython 3.12" in err)
    assert f"this is CPython {sys.version.split()[0]}" in err
    assert f"_core{sysconfig.get_config_var('EXT_SUFFIX')}" in err
    assert f"{sys.executable} -m pip install --no-build-isolation" in err


def test_a_missing_extension_says_how_to_build_it(tmp_path):
    result = _import_in(_copy_package(tmp_path))
    assert result.returncode != 0
    assert "circular import" not in result.stderr
    assert "extension _core" in result.stderr and "is not in" in result.stderr
    assert "-m pip install --no-build-isolation" in result.stderr


def test_a_broken_extension_keeps_its_own_error(tmp_path):
    """The right file is there but cannot load: the loader's message stays."""
    site = _copy_package(tmp_path, rename_to=f"_core{sysconfig.get_config_var('EXT_SUFFIX')}")
    (site / "tensorcode" / "program" / f"_core{sysconfig.get_config_var('EXT_SUFFIX')}").write_bytes(b"not elf")
    result = _import_in(site)
    assert result.returncode != 0
    assert "invalid ELF header" in result.stderr or "file too short" in result.stderr
    assert "built for another Python" not in result.stderr


def test_a_read_only_checkout_builds_in_a_writable_folder(tmp_path, monkeypatch):
    # issue 37: pip install from a checkout that cannot be written died inside
    # CMake ("Unable to (re)create the private pkgRedirects directory").
    # /proc/self takes no new folder, even for root (os.access would say yes
    # to root on a read-only mount, so the backend tries instead of asking).
    read_only = pathlib.Path("/proc/self")
    if not read_only.is_dir():
        pytest.skip("no /proc: no folder here that refuses a new folder to everyone")
    monkeypatch.setattr(tensorcode_backend, "ROOT", read_only)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    tree = tensorcode_backend._tree_for_this_interpreter()
    assert tree.parent == tmp_path / "cache" / "tensorcode", tree
    assert tree.name.startswith(f"build-pip-cp{sys.version_info[0]}{sys.version_info[1]}-")
    assert tree.is_dir() and os.access(tree, os.W_OK)
    # A named tree that cannot be written is refused with the variable's name.
    monkeypatch.setenv("TC_CMAKE_BUILD_DIR", str(read_only / "tree"))
    with pytest.raises(tensorcode_backend.BuildError, match="TC_CMAKE_BUILD_DIR=/proc/self/tree: .* cannot be written"):
        tensorcode_backend.build_extension()
