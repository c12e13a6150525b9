"""The rich display (tensorcode/program/display.py): what a notebook shows for
a program, a run with values and gradients, a failing hybrid gradient, a
verification report and a diff; the text fallbacks without Graphviz; large
circuits drawn grouped or cut to a neighbourhood. ctest python.display runs
this file when Graphviz's dot is installed (SKIPPED otherwise)."""
from html import unescape
import re
import shutil
import time

import pytest

from tensorcode.program import Builder, EvaluationError, compile, diff, display, float64, int32

# Outside ctest (which reports python.display SKIPPED without dot), the
# tests that look at pictures skip; the others run anywhere.
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")


def choose(a):
    return 10 if a > 4 else 12


def loop(x):
    total = 0.0
    for i in range(400):
        total = total + x * i
    return total


def hybrid_guard():
    b = Builder(semantics="hybrid")
    x = b.input("x", float64(min=-5, max=5))
    return b.build(b.select(x > 0, 1 / x, 0))


def node_labels(dot):
    return dict((int(i), label) for i, label in re.findall(r'^  n(\d+) \[label="((?:[^"\\]|\\.)*)"', dot, re.M))


@needs_dot
def test_a_program_displays_as_its_circuit_in_svg():
    program = compile(choose, {"a": int32(min=-128, max=127)})
    bundle = program._repr_mimebundle_()
    assert bundle["text/plain"] == repr(program)
    svg = bundle["image/svg+xml"]
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    # Core's labels (#id op name), each node once, and the title.
    for text in ("#0 input a", "gt", "select", "result", "choose: 6 nodes"):
        assert text in svg, text
    assert "text/html" not in bundle


def test_without_graphviz_the_display_says_so_and_shows_the_ir(monkeypatch):
    program = compile(choose, {"a": int32(min=-128, max=127)})
    monkeypatch.setenv("PATH", "/nonexistent")
    bundle = program._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    html = bundle["text/html"]
    assert "Graphviz" in html and "apt-get install graphviz" in html
    assert "select" in html  # the IR listing instead of the picture
    assert bundle["text/plain"] == repr(program)
    shown = program.show({"a": 5})._repr_mimebundle_()
    assert "Graphviz" in shown["text/html"] and "result = 10" in shown["text/html"]
    report = display.VerificationReport(program.verify())
    assert "passed" in report._repr_html_()


def test_a_failing_dot_is_a_message_not_an_exception(monkeypatch, tmp_path):
    fake = tmp_path / "dot"
    fake.write_text("#!/bin/sh\necho 'Error: syntax error in line 1' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    bundle = compile(choose, {"a": int32(min=-128, max=127)})._repr_mimebundle_()
    assert "Graphviz's dot failed (Error: syntax error in line 1)" in unescape(bundle["text/html"])


@needs_dot
def test_a_large_program_is_drawn_grouped_by_source_line():
    program = compile(loop, {"x": float64(min=-1, max=1)})
    assert program._c.info()["nodes"] > display.DRAWN_LIMIT
    dot, how = display._program_dot(program)
    assert how == "grouped by source line"
    boxes = re.findall(r"^  g\d+ \[", dot, re.M)
    assert 1 <= len(boxes) <= display.GROUP_LIMIT
    body = f"line {loop.__code__.co_firstlineno + 3}"  # `total = total + x * i`: 800 nodes, in two parts
    parts = re.findall(body + r" \u00b7 i=(\d+)\.\.(\d+)", dot)
    assert parts == [("0", "199"), ("200", "399")]
    assert "constants not drawn" in dot
    svg = program._repr_mimebundle_()["image/svg+xml"]
    assert body in svg and "#0 input x" in svg


def test_more_lines_than_boxes_falls_back_to_layer_bands():
    source = "def f(x):\n    y = x\n" + "".join(f"    y = y * {k + 2}\n" for k in range(200)) + "    return y\n"
    program = compile(source, {"x": float64(min=-1, max=1)})
    assert program._c.info()["nodes"] > display.DRAWN_LIMIT
    dot, how = display._program_dot(program)
    assert how == "grouped by bands of schedule layers"
    assert 1 <= len(re.findall(r"^  g\d+ \[", dot, re.M)) <= display.GROUP_LIMIT


@needs_dot
def test_a_very_large_program_without_locations_is_grouped_in_layer_bands_quickly():
    b = Builder()
    x = b.input("x")
    v = x
    for k in range(20000):
        v = v * 1.0001 + x if k % 2 else v - x
    program = b.build(v)
    start = time.perf_counter()
    dot, how = display._program_dot(program)
    assert how == "grouped by bands of schedule layers"
    assert len(re.findall(r"^  g\d+ \[", dot, re.M)) <= display.GROUP_LIMIT
    bundle = program._repr_mimebundle_()
    assert "image/svg+xml" in bundle
    assert time.perf_counter() - start < 20


@needs_dot
def test_show_puts_values_and_the_branch_taken_on_the_nodes():
    program = compile(choose, {"a": int32(min=-128, max=127)})
    shown = program.show({"a": 5})
    assert shown.outputs == {"result": 10.0} and shown.error is None
    labels = node_labels(shown.dot())
    ops = {i: n["op"] for i, n in enumerate(program.graph()["nodes"])}
    select = next(i for i, op in ops.items() if op == "select")
    assert "= 10" in labels[select] and "took yes" in labels[select]
    assert "= 5" in labels[0]
    html = shown._repr_mimebundle_()["text/html"]
    assert "<svg" in html and "took yes" in html and "result = 10" in html
    assert str(shown).startswith("run on a=5 (exact): result = 10")


@needs_dot
def test_show_puts_gradients_on_the_nodes():
    b = Builder(semantics="hybrid", surrogate="sigmoid")
    x = b.input("x", float64())
    w = b.parameter("weight", 0.0)
    p = b.build(b.select(x > 4, w * x, 0))
    shown = p.show({"x": 5})
    assert shown.gradients == p.gradients({"x": 5}) == {"x": 0.0, "weight": 5.0}
    labels = node_labels(shown.dot())
    assert "\u2202 5" in labels[1]  # d result / d weight on the parameter's node
    html = shown._repr_mimebundle_()["text/html"]
    assert "d result / d weight" in html and "\u2202" in html


@needs_dot
def test_a_failing_hybrid_gradient_is_marked_with_its_reason():
    p = hybrid_guard()
    shown = p.show({"x": 0})
    assert shown.error is None and shown.outputs == {"result": 0.0}
    e = shown.gradient_error
    assert e is not None and e["hybrid_needs_unchosen"]
    nodes = p.graph()["nodes"]
    assert nodes[e["node"]]["op"] == "div" and nodes[e["related"]]["op"] == "select"
    assert shown.failed_node == e["node"]
    labels = node_labels(shown.dot())
    assert "failed here" in labels[e["node"]]
    assert "hybrid: needs the unchosen branch" in labels[e["related"]]
    html = shown._repr_mimebundle_()["text/html"]
    assert "The gradient of result failed at node" in html
    assert f"The hybrid rule of select #{e['related']}" in html
    with pytest.raises(EvaluationError):
        p.gradients({"x": 0})  # the same failure, raised by the plain call


@needs_dot
def test_a_failing_run_marks_the_node():
    b = Builder()
    x = b.input("x")
    p = b.build(1 / x)
    shown = p.show({"x": 0})
    assert shown.outputs is None and shown.error["node"] is not None
    assert "failed here" in node_labels(shown.dot())[shown.error["node"]]
    assert "The run failed at node" in shown._repr_mimebundle_()["text/html"]


def test_show_checks_the_input_names_like_run():
    program = compile(choose, {"a": int32(min=-128, max=127)})
    with pytest.raises(EvaluationError, match="did you mean 'a'"):
        program.show({"aa": 5})
    with pytest.raises(EvaluationError, match="missing input 'a'"):
        program.show({})
    with pytest.raises(EvaluationError, match="input 'a'"):
        program.show({"a": 1000})  # outside its domain: the caller's error, not a picture


def test_show_on_a_large_program_draws_the_neighbourhood_of_the_failure():
    b = Builder(semantics="hybrid")
    x = b.input("x", float64(min=-5, max=5))
    v = x
    for _ in range(1000):
        v = v * 1.0 + 0.0
    p = b.build(b.select(x > 0, 1 / x, 0) + v)
    shown = p.show({"x": 0})
    dot = shown.dot()
    labels = node_labels(dot)
    assert len(labels) <= display.DRAWN_LIMIT
    assert shown.gradient_error["node"] in labels and shown.gradient_error["related"] in labels
    assert "showing" in dot and "nearest to the marked ones" in dot


def test_a_verification_report_is_a_dict_that_displays_its_mismatches():
    program = compile(choose, {"a": int32(min=-128, max=127)})
    report = program.verify()
    assert isinstance(report, dict) and report["passed"]
    assert report == {"cases": 256, "exhaustive": True, "passed": True, "mismatches": []}
    assert "verification passed" in report._repr_html_()

    def wrong(a):
        return 10 if a > 5 else 12

    failed = program.verify(wrong)
    html = failed._repr_html_()
    assert "verification FAILED" in html and "<table>" in html
    row = re.search(r"<tr><td>5</td>(.*?)</tr>", html)
    assert row is not None, html  # a=5: the circuit says 10, the reference 12
    assert "10" in row.group(1) and "12" in row.group(1)


@needs_dot
def test_a_diff_displays_in_colour_with_the_changed_nodes_marked():
    a = compile("def f(x, w):\n    y = x * w + 1\n    return y - x\n", {"x": float64(), "w": float64()})
    b = compile("def f(x, w):\n    y = x * w + 1\n    return y + x\n", {"x": float64(), "w": float64()})
    d = diff(a, b, cases=[{"x": 1, "w": 2}], labels=("before", "after"))
    bundle = d._repr_mimebundle_()
    assert bundle["text/plain"] == str(d)
    html = bundle["text/html"]
    assert "before and after are different" in html
    assert "1 changed" in html and "(was sub)" in html
    assert "<svg" in html and "changed: op" in html
    assert "#d97706" in html  # the changed node's colour, in the table and the picture
    same = diff(a, a)._repr_mimebundle_()["text/html"]
    assert "a and b are the same" in same


def test_display_methods_do_not_raise(monkeypatch):
    program = compile(choose, {"a": int32(min=-128, max=127)})

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(display, "_core", type("Broken", (), {"dot": staticmethod(broken)}))
    bundle = program._repr_mimebundle_()
    assert "this display failed (RuntimeError: boom)" in bundle["text/html"]


def counter():
    b = Builder()
    event = b.input("event", int32(min=0, max=1))
    count = b.state("count", 0, int32(min=0, max=100))
    b.update(count, count + event)
    return b.build(count)


def test_a_replay_is_a_list_that_displays_as_a_timeline():
    from tensorcode.program import Runtime
    events = [{"event": e} for e in (1, 0, 1, 1, 0, 1)]
    log = Runtime(counter()).replay(events)
    assert isinstance(log, list) and log == Runtime(counter())._c.replay(events)
    html = log._repr_html_()
    assert "<b>6 events</b>, steps 1 to 6" in html
    assert "output <tspan font-weight='bold'>result</tspan>" in html
    assert "state <tspan font-weight='bold'>count</tspan>" in html
    lines = re.findall(r"<polyline points='([^']*)'", html)
    assert len(lines) == 2 and all(len(p.split()) == 6 for p in lines)  # a point per event, per series
    # The state climbs 1, 1, 2, 3, 3, 4: each point's y is not below (numerically above) the next one's.
    ys = [float(p.split(",")[1]) for p in lines[1].split()]
    assert ys == sorted(ys, reverse=True) and ys[0] > ys[-1]
    assert "<td>4</td>" in html  # the last events' table


def test_a_long_replay_is_drawn_with_at_most_the_cap_of_points():
    from tensorcode.program import Runtime
    log = Runtime(counter(), max_steps=10_000).replay([{"event": int(k % 50 == 0)} for k in range(5000)])
    lines = re.findall(r"<polyline points='([^']*)'", log._repr_html_())
    assert lines and all(len(p.split()) <= display.TIMELINE_POINTS for p in lines)


def test_show_takes_another_semantics_as_the_program_would_run_in_it():
    def gated(semantics):
        b = Builder(semantics=semantics)
        x = b.input("x", float64())
        w = b.parameter("weight", 0.5)
        return b.build(b.select(x > 4, w * x, 0))

    exact = gated("exact")
    for semantics in ("relaxed", "hybrid"):
        shown = exact.show({"x": 4.5}, semantics=semantics)
        twin = gated(semantics)
        assert shown.semantics == semantics
        assert shown.outputs == twin.run({"x": 4.5})
        assert shown.gradients == twin.gradients({"x": 4.5})
    assert exact.show({"x": 4.5}, semantics="relaxed").outputs != exact.show({"x": 4.5}).outputs
    with pytest.raises(ValueError, match="semantics must be"):
        exact.show({"x": 1.0}, semantics="fuzzy")
