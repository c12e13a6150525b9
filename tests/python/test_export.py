"""Program.to_c() and Program.to_onnx(): the C export compiled with the
system's C compiler and called through ctypes agrees with Program.run bit for
bit, failing node included; the ONNX model is the CLI's, valid for the ONNX
checker when python3-onnx is importable; refusals are CompileErrors."""
import ctypes
import shutil
import struct
import subprocess

import pytest

from tensorcode.program import Builder, CompileError, EvaluationError, compile, float64, int32

SRC = """
def f(a, b):
    q = a // b if a > 0 else -a % 3
    return q + 1 / (b - 2)
"""


def program():
    return compile(SRC, {"a": float64(min=-10, max=10), "b": int32(min=-3, max=3)})


def bits(x):
    return struct.pack("<d", x)


def test_to_c_agrees_with_run_bit_for_bit(tmp_path):
    p = program()
    code = p.to_c("f", header_file="f.h")
    assert "#pragma STDC FP_CONTRACT OFF" in code["source"] and '#include "f.h"\n' in code["source"]
    assert "int f(double in_a, double in_b, double *out_result, long *error_node);" in code["header"]
    (tmp_path / "f.c").write_text(code["source"])
    (tmp_path / "f.h").write_text(code["header"])
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler is part of the build's requirements"
    lib = tmp_path / "libf.so"
    subprocess.run([cc, "-std=c99", "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "f.c"),
                    "-lm"], check=True)
    f = ctypes.CDLL(str(lib)).f
    f.argtypes = [ctypes.c_double, ctypes.c_double, ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_long)]
    f.restype = ctypes.c_int
    failures = 0
    for a in (-10.0, -3.5, -0.0, 0.0, 0.25, 7.0, 10.0, 11.0):
        for b in range(-3, 5):
            out, node = ctypes.c_double(), ctypes.c_long()
            code_ = f(a, float(b), ctypes.byref(out), ctypes.byref(node))
            try:
                want = p.run({"a": a, "b": b})["result"]
            except EvaluationError as e:
                failures += 1
                assert code_ != 0 and node.value == e.node, (a, b, code_, node.value, e.node)
                continue
            assert code_ == 0 and node.value == -1
            assert bits(out.value) == bits(want), (a, b, out.value, want)
    assert failures > 0  # b == 2 divides by zero, b == 0 too, a == 11 and b == 4 leave the domains


def test_to_onnx_is_the_clis_model():
    model = program().to_onnx()
    assert isinstance(model, bytes) and model[:2] == b"\x08\x08"  # ir_version 8
    for name in (b"failed", b"error_node", b"result"):
        assert name in model


def test_to_onnx_passes_the_onnx_checker():
    # Its own ctest entry, python.onnx_checker: SKIPPED without python3-onnx
    # (it used to return early inside python.package and pass).
    onnx = pytest.importorskip("onnx")
    model = program().to_onnx()
    m = onnx.load_from_string(model)
    onnx.checker.check_model(m, full_check=True)
    assert [i.name for i in m.graph.input] == ["a", "b"]
    assert [o.name for o in m.graph.output] == ["result", "failed", "error_node"]


def test_refusals_and_bad_names_are_compile_errors():
    b = Builder()
    count = b.state("count", 0, int32(min=0, max=3))
    b.update(count, count + 1)
    stateful = b.build(count)
    with pytest.raises(CompileError, match="the c backend runs stateless programs only"):
        stateful.to_c()
    with pytest.raises(CompileError, match="the onnx backend runs stateless programs only"):
        stateful.to_onnx()
    with pytest.raises(CompileError, match="cannot name the C functions"):
        program().to_c("int")
    with pytest.raises(CompileError, match="'floor' cannot name the C functions: <math.h> or the export already"):
        program().to_c("floor")
    with pytest.raises(CompileError, match="cannot be written in an #include"):
        program().to_c("f", header_file='a"b.h')
    assert '#include "modèle.h"\n' in program().to_c("f", header_file="modèle.h")["source"]
