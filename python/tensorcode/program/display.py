"""Rich display in Jupyter and other IPython front ends (and anything else
that asks an object for `_repr_mimebundle_` or `_repr_html_`).

What is drawn is core's: the circuit is core's dot text (`tensorcode info
--dot`, each schedule layer on one row), the values are the evaluator's
trace of one case and the gradients core's per-node adjoints
(python/src/node_view.cpp), and Graphviz's `dot` only turns the text into
SVG. Every object keeps its text form (`text/plain`); without Graphviz the
rich form says so and shows the text instead, and no display method raises.

Large circuits are not handed to dot whole (it takes minutes on thousands of
nodes): above DRAWN_LIMIT nodes a program is drawn grouped by source line
(or by bands of schedule layers), as the IDE groups large circuits, and a
run or a diff shows the nodes nearest to what matters (the failure, the
changes, the outputs).
"""
import html as _html
import math as _math
import re as _re
import shutil as _shutil
import subprocess as _subprocess

from . import _core

__all__ = ["DRAWN_LIMIT", "GROUP_LIMIT", "Inspection", "ReplayLog", "VerificationReport", "svg_of"]

#: Circuits up to this many nodes are drawn node by node (the IDE's Graphviz limit).
DRAWN_LIMIT = 300
#: The most boxes a grouped drawing has.
GROUP_LIMIT = 120
#: A source line of more nodes than this is drawn in parts (the IDE's kGroupSplit).
GROUP_SPLIT = 400
#: Edges drawn from one input, parameter or state box of a grouped drawing.
LEAF_EDGES = 3
#: Seconds Graphviz may take for one picture.
DOT_TIMEOUT = 30
#: Lines of IR text shown when there is no picture.
TEXT_LINES = 200

_NO_DOT = ("Graphviz's dot program is not installed (not found on PATH), so the circuit is not drawn. "
           "Install Graphviz (Debian: apt-get install graphviz) and display the object again; "
           "its text form follows.")

_RED, _RED_FILL = "#c62828", "#fde2e1"
_GREEN, _GREEN_FILL = "#2e7d32", "#dcf3dc"
_AMBER, _AMBER_FILL = "#d97706", "#fff1d6"
_BLUE_FILL = "#e3eeff"
_GREY = "#8a9099"


# -- Graphviz -------------------------------------------------------------------
def svg_of(dot_text):
    """Graphviz's SVG of `dot_text`: (svg, None), or (None, why) when dot is
    missing, fails or takes longer than DOT_TIMEOUT seconds. Never raises."""
    exe = _shutil.which("dot")
    if exe is None:
        return None, _NO_DOT
    try:
        done = _subprocess.run([exe, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True,
                               timeout=DOT_TIMEOUT, check=False)
    except _subprocess.TimeoutExpired:
        return None, f"Graphviz's dot took more than {DOT_TIMEOUT} s on this circuit, so it is not drawn."
    except OSError as e:
        return None, f"Graphviz's dot could not be run ({e}), so the circuit is not drawn."
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return None, "Graphviz's dot failed (" + (lines[0] if lines else f"exit status {done.returncode}") + ")."
    svg = done.stdout.decode("utf-8", errors="replace")
    start = svg.find("<svg")  # without the XML prolog and doctype, so that it also sits inside HTML
    return (svg[start:] if start >= 0 else svg), None


def _dot_str(text):
    """A dot double-quoted string's content."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _with_title(dot, title):
    head, sep, rest = dot.partition("{\n")
    attrs = f'  label="{_dot_str(title)}"; labelloc=t; labeljust=l; fontname="DejaVu Sans"; fontsize=11;\n'
    return head + sep + attrs + rest


def _text_block(text, lines=TEXT_LINES):
    rows = text.splitlines()
    more = len(rows) - lines
    shown = "\n".join(rows[:lines]) + (f"\n... {more} more lines" if more > 0 else "")
    return f"<pre style='font-size:11px;line-height:1.25'>{_html.escape(shown)}</pre>"


def _picture_html(dot, text):
    """The SVG inline, or the reason there is none and `text` instead."""
    svg, why = svg_of(dot)
    if svg is not None:
        return svg
    return f"<p style='color:{_RED}'><b>No picture:</b> {_html.escape(why)}</p>" + _text_block(text)


def _guarded(build, plain):
    """A bundle from build(), or the text form with the reason display failed."""
    try:
        return build()
    except Exception as e:  # noqa: BLE001 - a display method must not raise into the front end
        why = f"{type(e).__name__}: {e}"
        return {"text/plain": plain,
                "text/html": f"<p style='color:{_RED}'>tensorcode: this display failed ({_html.escape(why)})</p>"
                             f"<pre>{_html.escape(plain)}</pre>"}


def _number(v):
    if v is None:
        return "—"
    if isinstance(v, float):
        if _math.isnan(v):
            return "nan"
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.6g}"
    return str(v)


# -- the circuit ----------------------------------------------------------------
def _layers(program):
    layer_of = [0] * program._c.info()["nodes"]
    for k, ids in enumerate(program.schedule()):
        for i in ids:
            layer_of[i] = k
    return layer_of


def _title(program):
    info = program._c.info()
    fn = getattr(program._reference, "__name__", None)
    inputs = ", ".join(name for name, _, _ in info["inputs"]) or "none"
    outputs = ", ".join(info["outputs"])
    head = f"{fn}: " if fn else ""
    return (f"{head}{info['nodes']} nodes, inputs {inputs}, outputs {outputs}, {info['semantics']}, "
            f"{len(program.schedule())} layers")


def _program_dot(program):
    """(dot text, what it shows): core's dot of every node up to DRAWN_LIMIT
    nodes, else a grouped drawing."""
    n = program._c.info()["nodes"]
    if n <= DRAWN_LIMIT:
        return _with_title(_core.dot(program._c, None), _title(program)), "every node"
    return _grouped_dot(program)


def _grouped_dot(program):
    """A drawing of a large circuit as the IDE groups it: one box per source
    line (nodes without a location in bands of schedule layers), or per band
    of layers when there would be more than GROUP_LIMIT boxes. Constants are
    not drawn; inputs, parameters and state keep their own boxes (up to 40)."""
    graph = program.graph()
    nodes = graph["nodes"]
    layer_of = _layers(program)
    nlayers = max(layer_of) + 1 if layer_of else 1
    leaf_ops = ("input", "parameter", "state")
    leaves = [n["id"] for n in nodes if n["op"] in leaf_ops]
    own_box = set(leaves) if len(leaves) <= 40 else set()

    def plan(by_line, bands):
        width = max(1, -(-nlayers // bands))
        key = {}
        for node in nodes:
            i = node["id"]
            if node["op"] == "constant" or i in own_box:
                continue
            loc = node.get("location")
            if by_line and loc and loc.get("line"):
                key[i] = ("line", loc["line"])
            else:
                key[i] = ("layers", layer_of[i] // width)
        if by_line:
            split(key)
        return key, width

    def split(key):
        """A statement of more than GROUP_SPLIT nodes (a loop's body) in
        parts of about GROUP_SPLIT: by its outermost loop's iterations when
        the IR records them, else by bands of its layers (the IDE's level 2)."""
        members = {}
        for i, k in key.items():
            if k[0] == "line":
                members.setdefault(k, []).append(i)
        for k, ids in members.items():
            if len(ids) <= GROUP_SPLIT:
                continue
            parts = -(-len(ids) // GROUP_SPLIT)
            steps = [nodes[i].get("iteration") for i in ids]
            if all(steps):
                values = sorted({st[0][1] for st in steps})
                per = -(-len(values) // parts)
                rank = {v: j // per for j, v in enumerate(values)}
                bounds = {}
                for v in values:
                    bounds.setdefault(rank[v], []).append(v)
                var = steps[0][0][0]
                for i, st in zip(ids, steps):
                    part = bounds[rank[st[0][1]]]
                    key[i] = ("line", k[1], f"{var}={part[0]}..{part[-1]}")
            else:
                lo = min(layer_of[i] for i in ids)
                span = max(layer_of[i] for i in ids) - lo + 1
                per = max(1, -(-span // parts))
                for i in ids:
                    b = (layer_of[i] - lo) // per
                    key[i] = ("line", k[1], f"layers {lo + b * per}-{lo + (b + 1) * per - 1}")

    key, width = plan(True, 100)
    if len(set(key.values())) > GROUP_LIMIT:
        key, width = plan(False, GROUP_LIMIT // 2)
    groups = {}
    for i, k in key.items():
        g = groups.setdefault(k, {"size": 0, "lo": layer_of[i], "hi": layer_of[i], "ops": {}})
        g["size"] += 1
        g["lo"], g["hi"] = min(g["lo"], layer_of[i]), max(g["hi"], layer_of[i])
        op = nodes[i]["op"]
        g["ops"][op] = g["ops"].get(op, 0) + 1
    order = sorted(groups, key=lambda k: (groups[k]["lo"], str(k)))
    name = {k: f"g{j}" for j, k in enumerate(order)}

    def box_of(i):
        if i in own_box:
            return f"n{i}"
        k = key.get(i)
        return name[k] if k is not None else None

    lines = ["digraph tensorcode {", "  rankdir=TB; nodesep=0.25; ranksep=0.45;",
             '  node [shape=box, style="rounded,filled", fillcolor="#f4f6fa", fontname="DejaVu Sans", fontsize=10];']
    edges = {}
    for node in nodes:
        to = box_of(node["id"])
        if to is None:
            continue
        for a in node["args"]:
            fro = box_of(a)
            if fro is not None and fro != to:
                edges[(fro, to)] = edges.get((fro, to), 0) + 1
    # A leaf used all over (an input read by every band) would draw long
    # edges across every row, and dot takes minutes to route them: draw its
    # first few and say how many more boxes use it.
    rank = {name[k]: j for j, k in enumerate(order)}
    more = {}
    for i in own_box:
        mine = sorted((to for (fro, to) in edges if fro == f"n{i}"), key=lambda b: rank.get(b, -1))
        for to in mine[LEAF_EDGES:]:
            del edges[(f"n{i}", to)]
        more[i] = len(mine) - LEAF_EDGES
    for i in sorted(own_box):
        node = nodes[i]
        label = "#" + str(i) + " " + node["op"] + " " + node.get("name", "")
        if more[i] > 0:
            label += f"\n(and {more[i]} more boxes)"
        lines.append(f'  n{i} [label="{_dot_str(label)}"];')
    for k in order:
        g = groups[k]
        label = f"line {k[1]}" if k[0] == "line" else f"layers {k[1] * width}-{min(nlayers, (k[1] + 1) * width) - 1}"
        if len(k) > 2:
            label += f" \u00b7 {k[2]}"
        ops = sorted(g["ops"].items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        detail = f"{g['size']} nodes, layers {g['lo']}-{g['hi']}\n" + ", ".join(f"{op} {c}" for op, c in ops)
        lines.append(f'  {name[k]} [label="{_dot_str(label + chr(10) + detail)}", fillcolor="#e8edf6"];')
    for (fro, to), count in sorted(edges.items()):
        lines.append(f'  {fro} -> {to}' + (f' [label="{count}", fontsize=8];' if count > 1 else ";"))
    for out, i in graph["outputs"].items():
        box = box_of(i)
        if box is None:
            continue
        lines.append(f'  "out_{_dot_str(out)}" [shape=plaintext, style="", label="{_dot_str(out)}"];')
        lines.append(f'  {box} -> "out_{_dot_str(out)}" [style=dashed];')
    lines.append("}")
    how = "source line" if any(k[0] == "line" for k in order) else "bands of schedule layers"
    title = (f"{_title(program)}; drawn grouped by {how}: {len(order)} boxes, constants not drawn "
             f"(Program.dot() has every node)")
    return _with_title("\n".join(lines) + "\n", title), f"grouped by {how}"


def _program_bundle(program):
    """Program._repr_mimebundle_: the circuit as SVG (text/plain: the repr)."""
    plain = repr(program)

    def build():
        dot, _ = _program_dot(program)
        svg, why = svg_of(dot)
        if svg is not None:
            return {"text/plain": plain, "image/svg+xml": svg}
        return {"text/plain": plain,
                "text/html": f"<p><b>{_html.escape(_title(program))}</b></p>"
                             f"<p style='color:{_RED}'><b>No picture:</b> {_html.escape(why)}</p>"
                             + _text_block(program.ir())}
    return _guarded(build, plain)


# -- marking nodes in core's dot text --------------------------------------------
_NODE_LINE = _re.compile(r'^  n(\d+) \[label="((?:[^"\\]|\\.)*)"\];$', _re.M)


def _annotated_dot(dot, notes, title):
    """Core's dot text with extra label lines and styles per node id:
    notes[id] = (extra label lines, {attribute: value})."""
    def replace(m):
        i = int(m.group(1))
        extra, attrs = notes.get(i, ((), {}))
        label = m.group(2) + "".join("\\n" + _dot_str(x) for x in extra)
        more = "".join(f', {k}="{_dot_str(str(v))}"' for k, v in attrs.items())
        return f'  n{i} [label="{label}"{more}];'
    dot = _NODE_LINE.sub(replace, dot)
    # Boxes grow with their extra lines.
    dot = dot.replace("fixedsize=true", "fixedsize=false", 1)
    return _with_title(dot, title)


def _neighbourhood(nodes, centres, limit):
    """Up to `limit` node ids nearest to `centres` (arguments and users,
    breadth first), ascending."""
    users = [[] for _ in nodes]
    for node in nodes:
        for a in node["args"]:
            users[a].append(node["id"])
    seen, queue = set(), []
    for c in centres:
        if c is not None and 0 <= c < len(nodes) and c not in seen:
            seen.add(c)
            queue.append(c)
    head = 0
    while head < len(queue) and len(seen) < limit:
        i = queue[head]
        head += 1
        for j in list(nodes[i]["args"]) + users[i]:
            if j not in seen and len(seen) < limit:
                seen.add(j)
                queue.append(j)
    return sorted(seen)


def _subset_dot(program, nodes, centres):
    """(core's dot of every node or of the nodes nearest to `centres`, caption)."""
    if len(nodes) <= DRAWN_LIMIT:
        return _core.dot(program._c, None), ""
    subset = _neighbourhood(nodes, centres, DRAWN_LIMIT)
    return _core.dot(program._c, subset), f"; showing {len(subset)} of {len(nodes)} nodes, nearest to the marked ones"


def _where(node):
    loc = node.get("location")
    return f" (line {loc['line']}, column {loc['column']})" if loc else ""


# -- a run and its gradients ----------------------------------------------------
class Inspection:
    """One case run through a program, as Program.show() returns it: every
    node's value, and (for a differentiable output) every node's adjoint and
    the gradients, or the error that stopped them with the node it names.
    Displays as the annotated circuit in a notebook; str() is the text form."""

    def __init__(self, program, core, inputs, *, semantics=None, output=None, params=None, gradients=True):
        self.program = program
        self.inputs = dict(inputs)
        self.params = dict(params or {})
        self.semantics = semantics or program.semantics
        run = _core.node_values(core, inputs, params, semantics)
        self.values = run["values"]
        self.branch = run["branch"]
        self.outputs = run["outputs"]
        self.error = run["error"]
        self.output = output if output is not None else ("result" if "result" in program.outputs else
                                                         (program.outputs[0] if program.outputs else None))
        self.adjoints = None
        self.gradients = None
        self.gradient_error = None
        self.gradient_values = None
        if gradients and self.error is None and self.output is not None:
            grad = _core.node_gradients(core, inputs, self.output, params, semantics)
            self.adjoints = grad["adjoint"]
            self.gradients = grad["gradients"]
            self.gradient_error = grad["error"]
            self.gradient_values = grad["forward"]

    @property
    def failed_node(self):
        """The node the run or the gradient failed at (None when both worked)."""
        e = self.error or self.gradient_error
        return None if e is None else e["node"]

    def __repr__(self):
        return f"<tensorcode {self.summary()}>"

    def summary(self):
        case = ", ".join(f"{k}={_number(v)}" for k, v in self.inputs.items())
        text = f"run on {case or 'no inputs'} ({self.semantics})"
        if self.error is not None:
            return text + f": failed: {self.error['message']}"
        text += ": " + ", ".join(f"{k} = {_number(v)}" for k, v in self.outputs.items())
        if self.gradient_error is not None:
            text += f"; gradient of {self.output} failed: {self.gradient_error['message']}"
        elif self.gradients is not None:
            grads = ", ".join(f"d/d{k} = {_number(v)}" for k, v in self.gradients.items())
            text += f"; gradients of {self.output}: {grads or 'none (nothing differentiable)'}"
        return text

    __str__ = summary

    def _notes(self, nodes):
        notes = {}
        failed = self.failed_node
        hybrid = self.gradient_error is not None and self.gradient_error["hybrid_needs_unchosen"]
        select = self.gradient_error["related"] if hybrid else None
        params = {**self.program.parameters, **self.params}
        for node in nodes:
            i = node["id"]
            v = self.values[i] if i < len(self.values) else None
            if v is None and node["op"] == "constant":
                v = node.get("value")
            elif v is None and node["op"] == "parameter":
                v = params.get(node.get("name"))
            extra, attrs = [], {}
            if v is not None:
                extra.append(f"= {_number(v)}")
            elif node["op"] not in ("constant", "parameter", "input", "state"):
                unchosen = self.gradient_values[i] if self.gradient_values and i < len(self.gradient_values) else None
                extra.append("not evaluated" + (f" (= {_number(unchosen)})" if unchosen is not None else ""))
                attrs.update(style="rounded,filled,dashed", fontcolor=_GREY, fillcolor="#fafafa")
            if self.adjoints is not None and i < len(self.adjoints) and self.adjoints[i] is not None:
                extra.append(f"\u2202 {_number(self.adjoints[i])}")
                if self.adjoints[i] != 0:
                    attrs.setdefault("fillcolor", _BLUE_FILL)
            if i < len(self.branch) and self.branch[i] in (0, 1):
                extra.append("took " + ("yes" if self.branch[i] == 1 else "no"))
            if i == select:
                extra.append("hybrid: needs the unchosen branch")
                attrs.update(fillcolor=_AMBER_FILL, color=_AMBER, penwidth=2, style="rounded,filled",
                             tooltip=self.gradient_error["message"])
            if i == failed:
                extra.append("failed here")
                attrs.update(fillcolor=_RED_FILL, color=_RED, penwidth=2, style="rounded,filled", fontcolor="#202020",
                             tooltip=(self.error or self.gradient_error)["message"])
            if extra or attrs:
                notes[i] = (extra, attrs)
        return notes

    def dot(self):
        """The annotated circuit as dot text (what the display draws)."""
        nodes = self.program.graph()["nodes"]
        centres = [self.failed_node]
        if self.gradient_error is not None:
            centres.append(self.gradient_error["related"])
        centres += [i for name, i in self.program.graph()["outputs"].items()]
        dot, caption = _subset_dot(self.program, nodes, centres)
        return _annotated_dot(dot, self._notes(nodes), _title(self.program) + caption)

    def _html(self):
        rows = []
        for k, v in self.inputs.items():
            rows.append(("input", k, _number(v), ""))
        if self.outputs is not None:
            for k, v in self.outputs.items():
                rows.append(("output", k, _number(v), ""))
        if self.gradients is not None:
            for k, v in self.gradients.items():
                rows.append(("gradient", f"d {self.output} / d {k}", _number(v), ""))
        nodes = self.program.graph()["nodes"]
        table = "".join(f"<tr><td>{_html.escape(a)}</td><td><code>{_html.escape(b)}</code></td>"
                        f"<td style='text-align:right'>{_html.escape(c)}</td></tr>" for a, b, c, _ in rows)
        parts = [f"<div class='tensorcode-show'><p><b>{_html.escape(self.summary())}</b></p>",
                 f"<table>{table}</table>"]
        for what, e in (("run", self.error), (f"gradient of {self.output}", self.gradient_error)):
            if e is None:
                continue
            at = ""
            if e["node"] is not None and e["node"] < len(nodes):
                node = nodes[e["node"]]
                at = f" at node #{e['node']} ({node['op']}){_where(node)}"
            reason = ""
            if e["hybrid_needs_unchosen"] and e["related"] is not None and e["related"] < len(nodes):
                reason = (f" The hybrid rule of select #{e['related']}{_where(nodes[e['related']])} needs the "
                          f"value of the branch it did not choose, and that branch fails on this case.")
            parts.append(f"<p style='color:{_RED}'><b>The {what} failed{_html.escape(at)}:</b> "
                         f"{_html.escape(e['message'])}.{_html.escape(reason)}</p>")
        parts.append(_picture_html(self.dot(), self.program.ir()))
        parts.append("</div>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        plain = repr(self)
        return _guarded(lambda: {"text/plain": plain, "text/html": self._html()}, plain)


# -- verification --------------------------------------------------------------
class VerificationReport(dict):
    """Program.verify()'s report: the dict of contract section 5 ({"cases",
    "exhaustive", "passed", "mismatches"}), displayed in a notebook as a
    verdict and a table of the mismatches."""

    __slots__ = ()

    def _repr_html_(self):
        try:
            return self._html()
        except Exception as e:  # noqa: BLE001 - never raise into the front end
            return f"<p style='color:{_RED}'>tensorcode: this display failed ({_html.escape(repr(e))})</p>"

    def _html(self):
        passed = bool(self.get("passed"))
        colour = _GREEN if passed else _RED
        how = "every value of the domains" if self.get("exhaustive") else "sampled and given cases"
        verdict = "passed" if passed else "FAILED"
        parts = [f"<div class='tensorcode-verify'><p><b style='color:{colour}'>verification {verdict}</b>: "
                 f"{_html.escape(str(self.get('cases')))} cases ({how}), "
                 f"{len(self.get('mismatches') or [])} mismatches listed</p>"]
        mismatches = self.get("mismatches") or []
        if mismatches:
            names = []
            for m in mismatches:
                for k in (m.get("inputs") or {}):
                    if k not in names:
                        names.append(k)
            other = [k for k in mismatches[0] if k not in ("inputs",)]
            head = "".join(f"<th>{_html.escape(k)}</th>" for k in names + other)
            body = []
            for m in mismatches:
                cells = [_number((m.get("inputs") or {}).get(k)) for k in names]
                cells += [_cell(m.get(k)) for k in other]
                body.append("<tr>" + "".join(f"<td>{_html.escape(c)}</td>" for c in cells) + "</tr>")
            parts.append(f"<table><tr>{head}</tr>{''.join(body)}</table>")
        parts.append("</div>")
        return "".join(parts)


def _cell(v):
    if isinstance(v, dict):
        return ", ".join(f"{k}={_cell(x)}" for k, x in v.items())
    if isinstance(v, float):
        return _number(v)
    return "—" if v is None else str(v)


# -- diff ------------------------------------------------------------------------
_STATUS = {"added": (_GREEN, _GREEN_FILL), "removed": (_RED, _RED_FILL), "changed": (_AMBER, _AMBER_FILL)}


def _diff_dot(d, b, label="b"):
    """Program b's circuit with the diff's marks: added nodes green, changed
    ones amber (removed ones exist only in a and are listed, not drawn)."""
    nodes = b.graph()["nodes"]
    notes = {}
    for status in ("added", "changed"):
        colour, fill = _STATUS[status]
        for entry in d.nodes.get(status, []):
            i = entry.get("b")
            if i is None:
                continue
            extra = [status + (": " + ", ".join(entry.get("fields", [])) if entry.get("fields") else "")]
            notes[i] = (extra, {"fillcolor": fill, "color": colour, "penwidth": 2})
    dot, caption = _subset_dot(b, nodes, sorted(notes) + list(b.graph()["outputs"].values()))
    summary = d.summary
    title = (f"{label}: {summary.get('changed', 0)} changed, "
             f"{summary.get('added', 0)} added, {summary.get('removed', 0)} removed, "
             f"{summary.get('unchanged', 0)} unchanged{caption}")
    return _annotated_dot(dot, notes, title)


def _diff_html(d, programs, labels):
    a_label, b_label = labels
    same = "the same" if d.same else "different"
    colour = _GREEN if d.same else _AMBER
    s = d.summary
    parts = [f"<div class='tensorcode-diff'><p><b style='color:{colour}'>{_html.escape(a_label)} and "
             f"{_html.escape(b_label)} are {same}</b>: "
             f"<span style='color:{_AMBER}'>{s.get('changed', 0)} changed</span>, "
             f"<span style='color:{_GREEN}'>{s.get('added', 0)} added</span>, "
             f"<span style='color:{_RED}'>{s.get('removed', 0)} removed</span>, "
             f"{s.get('unchanged', 0)} unchanged nodes</p>"]
    rows = []
    for f in d.program:
        rows.append(("changed", "program", f.get("field", ""), f"{_cell(f.get('a'))} \u2192 {_cell(f.get('b'))}"))
    for kind, entries in (("input", d.inputs), ("parameter", d.parameters), ("state", d.state)):
        for e in entries:
            a, b = e.get("a") or {}, e.get("b") or {}
            value = "value" if kind == "parameter" else ("initial" if kind == "state" else "domain")
            rows.append((e.get("status", "changed"), kind, e.get("name", ""),
                         f"{_cell(a.get(value))} \u2192 {_cell(b.get(value))}" if a and b else
                         _cell((a or b).get(value))))
    for status in ("changed", "added", "removed"):
        for e in d.nodes.get(status, []):
            side = "a" if status == "removed" else "b"
            loc = e.get("location")
            where = f" line {loc['line']}:{loc['column']}" if loc else ""
            fields = ", ".join(e.get("fields", []))
            what = fields + (f" (was {e['a_op']})" if e.get("a_op") else "")
            rows.append((status, "node", f"#{e.get(side)} {e.get('op', '')}{where}", what))
    for o in d.outputs:
        status = o.get("status", "")
        detail = f"circuit {o.get('circuit', '')}"
        if o.get("cases") is not None:
            detail += f", values differ on {o.get('differing', 0)} of {o.get('cases')} cases"
            ex = o.get("examples") or []
            if ex:
                detail += " (" + "; ".join(f"case {x.get('case')}: {_cell(x.get('a'))} \u2192 {_cell(x.get('b'))}"
                                           for x in ex[:5]) + ")"
        rows.append((status if status in _STATUS else ("changed" if o.get("circuit") == "changed" else "same"),
                     "output", o.get("name", ""), detail))
    shown, more = rows[:200], len(rows) - 200
    body = []
    for status, kind, name, detail in shown:
        colour, fill = _STATUS.get(status, ("#333333", "transparent"))
        body.append(f"<tr style='background:{fill}'><td style='color:{colour}'><b>{_html.escape(status)}</b></td>"
                    f"<td>{_html.escape(kind)}</td><td><code>{_html.escape(str(name))}</code></td>"
                    f"<td>{_html.escape(detail)}</td></tr>")
    if body:
        parts.append("<table>" + "".join(body) + "</table>")
    if more > 0:
        parts.append(f"<p>... {more} more rows (str(diff) and diff.to_dict() have them all)</p>")
    if programs is not None:
        parts.append(_picture_html(_diff_dot(d, programs[1], b_label), str(d)))
    else:
        parts.append(_text_block(str(d)))
    parts.append("</div>")
    return "".join(parts)


# -- the event runtime -------------------------------------------------------------
#: Series drawn in a timeline (outputs first, then state), and points per series.
TIMELINE_SERIES = 8
TIMELINE_POINTS = 2000


class ReplayLog(list):
    """Runtime.replay()'s records ({"step", "outputs", "state"} per event), a
    list, displayed in a notebook as a timeline: each output and state value
    over the steps as a small plot, then the last events as a table."""

    __slots__ = ()

    def _repr_html_(self):
        try:
            return _timeline_html(list(self))
        except Exception as e:  # noqa: BLE001 - never raise into the front end
            return f"<p style='color:{_RED}'>tensorcode: this display failed ({_html.escape(repr(e))})</p>"


def _series(records):
    names = []
    for kind in ("outputs", "state"):
        for r in records:
            for k in (r.get(kind) or {}):
                if (kind, k) not in names:
                    names.append((kind, k))
    return names


def _timeline_svg(records):
    """Small multiples: one row per series, x the event's step, y its value
    (scaled to the row; the row's label gives the range). Pure SVG: no Graphviz."""
    names = _series(records)[:TIMELINE_SERIES]
    every = max(1, -(-len(records) // TIMELINE_POINTS))
    shown = records[::every]
    width, row, left, right = 560, 56, 150, 10
    height = row * len(names) + 24
    steps = [r.get("step", i) for i, r in enumerate(shown)]
    lo_step, hi_step = (min(steps), max(steps)) if steps else (0, 1)
    span = max(1, hi_step - lo_step)
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           f"font-family='DejaVu Sans, sans-serif' font-size='11'>"]
    for j, (kind, name) in enumerate(names):
        top = j * row + 4
        values = [(s, (r.get(kind) or {}).get(name)) for s, r in zip(steps, shown)]
        values = [(s, v) for s, v in values if isinstance(v, (int, float)) and _math.isfinite(v)]
        lo = min((v for _, v in values), default=0.0)
        hi = max((v for _, v in values), default=0.0)
        scale = (hi - lo) or 1.0
        out.append(f"<text x='4' y='{top + 16}'>{_html.escape(kind[:-1] if kind == 'outputs' else kind)} "
                   f"<tspan font-weight='bold'>{_html.escape(name)}</tspan></text>")
        out.append(f"<text x='4' y='{top + 32}' fill='{_GREY}'>{_number(float(lo))} .. {_number(float(hi))}</text>")
        out.append(f"<rect x='{left}' y='{top}' width='{width - left - right}' height='{row - 10}' fill='#f4f6fa'/>")
        points = " ".join(f"{left + (s - lo_step) / span * (width - left - right):.1f},"
                          f"{top + (row - 12) - (v - lo) / scale * (row - 16):.1f}" for s, v in values)
        if points:
            out.append(f"<polyline points='{points}' fill='none' stroke='#3366cc' stroke-width='1.5'/>")
    out.append(f"<text x='{left}' y='{height - 6}' fill='{_GREY}'>step {lo_step}</text>")
    out.append(f"<text x='{width - right}' y='{height - 6}' fill='{_GREY}' text-anchor='end'>step {hi_step}</text>")
    out.append("</svg>")
    return "".join(out)


def _timeline_html(records):
    names = _series(records)
    parts = [f"<div class='tensorcode-replay'><p><b>{len(records)} events</b>"
             + (f", steps {records[0].get('step')} to {records[-1].get('step')}" if records else "")
             + (f"; the first {TIMELINE_SERIES} of {len(names)} series drawn" if len(names) > TIMELINE_SERIES else "")
             + "</p>"]
    if records and names:
        parts.append(_timeline_svg(records))
        head = "".join(f"<th>{_html.escape(k)}</th>" for _, k in names)
        body = "".join("<tr><td>" + _html.escape(str(r.get("step"))) + "</td>"
                       + "".join(f"<td>{_number((r.get(kind) or {}).get(k))}</td>" for kind, k in names) + "</tr>"
                       for r in records[-10:])
        parts.append(f"<table><tr><th>step</th>{head}</tr>{body}</table>")
    parts.append("</div>")
    return "".join(parts)
