"""tensorcode.program.prove (python/src/prove.cpp, proof.py): the fields of
`tensorcode prove --json`, counterexamples that Program.run reproduces,
refusals, the GIL released during the solve, Ctrl-C cancelling it, and the
report's notebook display. Real Z3 and cvc5: ctest python.prove runs this
file when the cvc5 binary is installed (SKIPPED otherwise)."""
import json
import os
import re
import shutil
import subprocess
import threading
import time
import _thread

import pytest

from tensorcode.program import (Builder, EvaluationError, VerificationError, analyze, compile, float64, int32,
                                prove, verified_replacement)
from tensorcode.program.proof import Counterexample, ProofReport

# Outside ctest (which reports python.prove SKIPPED without cvc5), skip here.
pytestmark = pytest.mark.skipif(shutil.which("cvc5") is None, reason="the cvc5 binary is not installed")

F = {"x": float64()}


def twice(x):
    return x * 2.0


def doubled(x):
    return x + x


def shifted(x):
    return (x + 1.0) - 1.0


def same(x):
    return x * 1.0


def nudged(x):
    return x + 1e-10


def risky(x):
    return 100 // (x - 17)


# Equal, but neither solver proves it within 30 s (binary64 products and a
# quotient): a proof that runs as long as it is allowed to.
H = {"x": float64(), "y": float64()}


def thrice(x, y):
    return (x * 3.0) / y


def twice_plus(x, y):
    return (x * 2.0 + x) / y


def test_equivalent_programs_are_proved_with_both_solvers():
    r = prove(compile(twice, F), compile(doubled, F))
    assert isinstance(r, ProofReport) and isinstance(r, dict)
    assert r.verdict == "equivalent" and r.proved
    assert r.counterexample is None
    assert r.solvers == {"z3": "unsat", "cvc5": "unsat"}
    assert r.seconds > 0 and set(r["solver_seconds"]) == {"z3", "cvc5"}
    assert str(r).startswith("equivalent (z3: unsat, cvc5: unsat) in ")


def test_the_fields_are_those_the_cli_prints(tmp_path):
    cli = os.environ.get("TC_CLI")
    if not cli:
        pytest.skip("TC_CLI (the tensorcode binary) is not set")
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def f(x):\n    return (x + 1.0) - 1.0\n")
    b.write_text("def f(x):\n    return x * 1.0\n")
    out = subprocess.run([cli, "prove", str(a), str(b), "--input", "x=float64:-1:1", "--json"],
                         capture_output=True, text=True)
    assert out.returncode == 1, out.stderr
    printed = json.loads(out.stdout)
    d = float64(min=-1, max=1)
    r = prove(compile(shifted, {"x": d}), compile(same, {"x": d}))
    assert list(r) == list(printed)
    assert list(r["counterexample"]) == list(printed["counterexample"])
    assert r["verdict"] == printed["verdict"] == "different"


def test_a_counterexample_runs_again_through_program_run():
    d = float64(min=-1, max=1)
    a, b = compile(shifted, {"x": d}), compile(same, {"x": d})
    r = prove(a, b)
    assert r.verdict == "different" and not r.proved
    cex = r.counterexample
    assert isinstance(cex, Counterexample)
    assert set(cex.inputs) == {"x"} and -1 <= cex.inputs["x"] <= 1
    ra, rb = a.run(cex.inputs), b.run(cex.inputs)
    assert ra != rb
    assert cex.a == ra and cex.b == rb
    assert cex["set"].startswith("--set x=")


def test_one_program_cannot_fail_or_fails_at_the_input_given():
    safe = compile(same, {"x": float64(min=-1e300, max=1e300)})
    assert prove(safe).verdict == "cannot-fail"
    p = compile(risky, {"x": int32(min=-1000, max=1000)})
    r = prove(p, timeout=30)
    assert r.verdict == "can-fail"
    cex = r.counterexample
    assert cex.inputs == {"x": 17.0}
    assert "division by zero" in cex.message
    assert analyze(p)["nodes"][cex.node]["op"] == "floordiv"
    with pytest.raises(EvaluationError, match="division by zero"):
        p.run(cex.inputs)


def test_tolerances_are_the_verify_rule():
    d = {"x": float64(min=-1, max=1)}
    a, b = compile(nudged, d), compile(same, d)
    assert prove(a, b).verdict == "different"
    assert prove(a, b, atol=1e-9).verdict == "equivalent"
    assert prove(a, b, rtol=1e-9).verdict == "different"  # near 0, 1e-10 is not within 1e-9 * |x|


def test_refusals_are_verification_errors_and_bad_arguments_value_errors():
    b = Builder()
    x = b.input("x", float64())
    with pytest.raises(VerificationError, match="sigmoid"):
        prove(b.build(b.sigmoid(x)))
    with pytest.raises(VerificationError, match="input 'x' has domain"):
        prove(compile(twice, F), compile(twice, {"x": float64(min=0, max=1)}))
    with pytest.raises(ValueError, match="tol"):
        prove(compile(twice, F), compile(doubled, F), atol=-1)
    with pytest.raises(ValueError, match="timeout"):
        prove(compile(twice, F), timeout=0)


def test_a_short_time_limit_is_unknown():
    r = prove(compile(thrice, H), compile(twice_plus, H), timeout=0.5)
    assert r.verdict == "unknown" and not r.proved
    assert r.reason and "no solver answered" in r.reason


def test_the_gil_is_released_while_the_solvers_run():
    a, b = compile(thrice, H), compile(twice_plus, H)
    done = threading.Event()
    result = {}

    def solve():
        result["r"] = prove(a, b, timeout=2)
        done.set()

    t = threading.Thread(target=solve)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert result["r"].verdict == "unknown"
    # Two seconds of solving: a thread holding the GIL would leave a handful.
    assert ticks > 200, ticks


def test_ctrl_c_cancels_the_proof_and_raises_keyboard_interrupt():
    a, b = compile(thrice, H), compile(twice_plus, H)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    started = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        prove(a, b, timeout=120)
    elapsed = time.monotonic() - started
    timer.join()
    assert elapsed < 5, elapsed  # the solvers were stopped, not waited for


# -- verified_replacement(prove=True) -----------------------------------------
def test_a_proved_candidate_replaces_over_float_and_large_int_domains():
    for domains in (F, {"x": int32()}):
        original, candidate = compile(twice, domains), compile(doubled, domains)
        # Enumeration cannot cover these domains ...
        with pytest.raises(VerificationError, match="exhaustively|combinations"):
            verified_replacement(original, candidate)
        # ... a proof does.
        assert verified_replacement(original, candidate, prove=True) is candidate


def test_a_candidate_that_differs_is_refused_with_the_counterexample():
    d = {"x": float64(min=-1, max=1)}
    original, candidate = compile(same, d), compile(nudged, d)
    with pytest.raises(VerificationError, match=r"replacement refused: the candidate differs from the original at x=") as e:
        verified_replacement(original, candidate, prove=True)
    report = e.value.report
    assert isinstance(report, ProofReport) and report.verdict == "different"
    x = report.counterexample.inputs
    assert original.run(x) != candidate.run(x)
    # Within a tolerance it is proved and accepted.
    assert verified_replacement(original, candidate, prove=True, atol=1e-9) is candidate


def test_no_proof_refuses_and_structural_reasons_come_first():
    with pytest.raises(VerificationError, match="no proof that the candidate equals the original") as e:
        verified_replacement(compile(thrice, H), compile(twice_plus, H), prove=True, timeout=0.3)
    assert e.value.report.verdict == "unknown"
    b = Builder()
    x = b.input("x", float64())
    w = b.parameter("w", 2.0)
    with pytest.raises(VerificationError, match="the candidate has parameters") as e:
        verified_replacement(compile(twice, F), b.build(x * w), prove=True)
    assert e.value.report is None


# -- display -------------------------------------------------------------------
def test_a_proof_displays_its_verdict_and_solvers():
    r = prove(compile(twice, F), compile(doubled, F))
    html = r._repr_html_()
    assert "<b style='color:#2e7d32'>equivalent</b>" in html
    assert re.search(r"<tr><td>z3</td><td>unsat</td><td>[0-9.]+ s</td></tr>", html), html
    assert re.search(r"<tr><td>cvc5</td><td>unsat</td>", html), html
    assert "counterexample" not in html


def test_a_disproof_displays_the_counterexample_as_a_table():
    d = float64(min=-1, max=1)
    r = prove(compile(shifted, {"x": d}), compile(same, {"x": d}))
    html = r._repr_html_()
    assert "<b style='color:#c62828'>different</b>" in html
    assert "program.run(report.counterexample.inputs)" in html
    assert "<th></th><th>x</th><th>outputs</th>" in html
    a_row = re.search(r"<tr><th>a</th><td>([^<]*)</td><td>([^<]*)</td></tr>", html)
    b_row = re.search(r"<tr><th>b</th><td>([^<]*)</td><td>([^<]*)</td></tr>", html)
    assert a_row and b_row, html
    assert a_row.group(1) == b_row.group(1)  # the same input on both rows
    assert a_row.group(2).startswith("result=") and a_row.group(2) != b_row.group(2)
    text = str(r)
    assert text.startswith("different (") and "inputs: {'x': " in text and "\n  a: {'result': " in text


def test_a_failing_input_displays_node_and_error():
    p = compile(risky, {"x": int32(min=-1000, max=1000)})
    r = prove(p, timeout=30)
    html = r._repr_html_()
    assert "<th>x</th><th>node</th><th>error</th>" in html
    assert re.search(r"<tr><td>17</td><td>\d+</td><td>[^<]*division by zero", html), html
    assert "error at node" in str(r)


def test_an_unknown_proof_displays_in_amber_with_its_reason():
    r = prove(compile(thrice, H), compile(twice_plus, H), timeout=0.3)
    html = r._repr_html_()
    assert "<b style='color:#d97706'>unknown</b>" in html and "no solver answered" in html
    assert "ProofReport({" in repr(r)


def test_math_sqrt_is_encoded_exactly_and_the_libm_functions_refused_by_name():
    # fp.sqrt is IEEE's correctly rounded root: a proof, and the domain
    # error's counterexample; exp has no encoding in the theory.
    src = "import math\ndef f(x):\n    return math.sqrt(x * x + 1)\n"
    assert prove(compile(src, {"x": float64(min=-100, max=100)})).verdict == "cannot-fail"
    r = prove(compile("import math\ndef f(x):\n    return math.sqrt(x)\n", {"x": float64(min=-1, max=4)}))
    assert r.verdict == "can-fail" and r.counterexample.inputs["x"] < 0
    assert "ValueError: math domain error" in r.counterexample["message"]
    with pytest.raises(VerificationError, match=r"math.exp has no exact encoding"):
        prove(compile("import math\ndef f(x):\n    return math.exp(x)\n", {"x": float64(min=-1, max=4)}))
