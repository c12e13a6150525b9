"""What tensorcode.program.prove returns: the JSON document of `tensorcode
prove --json` (docs/verification.md, "Proofs") as a dict, with attributes
for its fields, the text `tensorcode prove` prints, and a notebook display
(the verdict, each solver's answer and time, the counterexample as a table).

The counterexample's inputs are the values the evaluator reproduced, by
input name, so `program.run(report.counterexample.inputs)` runs the case
again (binary64 values that read back exactly).
"""
import html as _html

from .display import _AMBER, _GREEN, _RED, _cell, _number

__all__ = ["Counterexample", "ProofReport"]

_PROVED = ("equivalent", "cannot-fail")
_DISPROVED = ("different", "can-fail")


class Counterexample(dict):
    """The input where the programs disagree (or the program fails):
    {"inputs", "set"} and, for two programs, {"a", "b"} (each side's outputs
    or {"error": message}), for one, {"node", "message"}."""

    __slots__ = ()

    @property
    def inputs(self):
        """{input name: value}: what Program.run takes."""
        return dict(self.get("inputs") or {})

    @property
    def a(self):
        return self.get("a")

    @property
    def b(self):
        return self.get("b")

    @property
    def node(self):
        return self.get("node")

    @property
    def message(self):
        return self.get("message")


class ProofReport(dict):
    """tensorcode.program.prove's result: {"verdict", "counterexample"
    (absent when proved or unknown), "solvers", "solver_seconds", "seconds",
    "merged" (two programs), "reason" (unknown: why)}."""

    __slots__ = ()

    def __init__(self, doc):
        super().__init__(doc)
        if isinstance(self.get("counterexample"), dict):
            self["counterexample"] = Counterexample(self["counterexample"])

    @property
    def verdict(self):
        """"equivalent", "different", "cannot-fail", "can-fail" or "unknown"."""
        return self["verdict"]

    @property
    def proved(self):
        """True for "equivalent" and "cannot-fail"."""
        return self["verdict"] in _PROVED

    @property
    def counterexample(self):
        return self.get("counterexample")

    @property
    def solvers(self):
        """{solver: answer}: "unsat", "sat", "timeout", "cancelled", ..."""
        return dict(self.get("solvers") or {})

    @property
    def seconds(self):
        return self.get("seconds")

    @property
    def reason(self):
        return self.get("reason")

    def __str__(self):
        solvers = ", ".join(f"{k}: {v}" for k, v in self.solvers.items())
        lines = [f"{self.verdict} ({solvers}) in {self.seconds:.2f} s"]
        if self.reason:
            lines.append(f"  {self.reason}")
        cex = self.counterexample
        if cex is not None:
            lines.append(f"  inputs: {cex.inputs}  (program.run(report.counterexample.inputs) repeats it)")
            if "message" in cex:
                lines.append(f"  error at node {cex.node}: {cex.message}")
            else:
                lines.append(f"  a: {cex.a}")
                lines.append(f"  b: {cex.b}")
        return "\n".join(lines)

    def __repr__(self):
        return f"ProofReport({dict.__repr__(self)})"

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))

    def _repr_html_(self):
        try:
            return self._html()
        except Exception as e:  # noqa: BLE001 - never raise into the front end
            return f"<p style='color:{_RED}'>tensorcode: this display failed ({_html.escape(repr(e))})</p>"

    def _html(self):
        verdict = self.verdict
        colour = _GREEN if verdict in _PROVED else _RED if verdict in _DISPROVED else _AMBER
        parts = [f"<div class='tensorcode-prove'><p><b style='color:{colour}'>{_html.escape(verdict)}</b> "
                 f"in {_html.escape(_number(self.seconds))} s</p>"]
        if self.reason:
            parts.append(f"<p>{_html.escape(self.reason)}</p>")
        times = self.get("solver_seconds") or {}
        rows = "".join(f"<tr><td>{_html.escape(k)}</td><td>{_html.escape(str(v))}</td>"
                       f"<td>{_html.escape(_number(times.get(k)))} s</td></tr>" for k, v in self.solvers.items())
        parts.append(f"<table><tr><th>solver</th><th>answer</th><th>time</th></tr>{rows}</table>")
        cex = self.counterexample
        if cex is not None:
            names = list(cex.inputs)
            head = "".join(f"<th>{_html.escape(n)}</th>" for n in names)
            values = "".join(f"<td>{_html.escape(_number(cex.inputs[n]))}</td>" for n in names)
            if "message" in cex:
                head += "<th>node</th><th>error</th>"
                values += f"<td>{_html.escape(_number(cex.node))}</td><td>{_html.escape(str(cex.message))}</td>"
                rows = f"<tr>{values}</tr>"
            else:
                head = "<th></th>" + head + "<th>outputs</th>"
                rows = "".join(f"<tr><th>{side}</th>{values}<td>{_html.escape(_cell(cex.get(side)))}</td></tr>"
                               for side in ("a", "b"))
            parts.append("<p>counterexample (reproduced by the evaluator; "
                         "<code>program.run(report.counterexample.inputs)</code> repeats it):</p>"
                         f"<table><tr>{head}</tr>{rows}</table>")
        parts.append("</div>")
        return "".join(parts)
