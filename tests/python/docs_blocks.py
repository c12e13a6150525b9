"""The ```python blocks of docs/python.md, for test_docs.py and
test_torch_docs.py: each block runs as written, as a script of its own in a
fresh interpreter (so `if __name__ == "__main__":` blocks run too)."""
import os
import pathlib
import re
import subprocess
import sys

import tensorcode

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks(torch):
    """(line, code) of each python block that does (torch=True) or does not use torch."""
    text = DOC.read_text()
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        code = m.group(1)
        uses_torch = bool(re.search(r"^\s*(import .*\btorch\b|from torch\b)", code, re.M)) or any(
            name in code for name in ("to_tensor_module", "program.operation", "program.training"))
        if uses_torch == torch:
            out.append((text.count("\n", 0, m.start()) + 2, code))
    return out


def run(line, code, tmp_path):
    script = tmp_path / f"python_md_line_{line}.py"
    script.write_text(code)
    env = dict(os.environ)
    package = str(pathlib.Path(tensorcode.__file__).resolve().parents[1])
    env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path,
                       timeout=300)
    assert r.returncode == 0, f"docs/python.md block at line {line} failed:\n{r.stderr[-3000:]}"
