#!/usr/bin/env python3
"""Writes the valid round-trip artifacts in roundtrip/ (every op, float32,
state, per-node policy, awkward doubles). Run from this folder."""
import json, os

def node(i, op, args=(), **kw):
    n = {"id": i, "op": op, "args": list(args), "shape": [], "domain": None,
         "differentiable": False, "location": None}
    n.update(kw)
    return n

def prog(nodes, outputs, updates=None, **root):
    p = {"format": "tensorcode.program", "version": 1, "semantics": "exact", "dtype": "float64",
         "surrogate": "sigmoid", "temperature": 1.0, "nodes": nodes, "outputs": outputs,
         "updates": updates or {}}
    p.update(root)
    return p

all_ops = [
    node(0, "input", name="x", domain={"type": "float64", "min": -10, "max": 10}, differentiable=True,
         location={"line": 1, "column": 7}),
    node(1, "input", name="i", domain={"type": "int32", "min": 0, "max": 2}),
    node(2, "parameter", name="w", value=0.25, differentiable=True),
    node(3, "constant", value=3),
    node(4, "add", [0, 2]), node(5, "sub", [4, 3]), node(6, "mul", [5, 2]), node(7, "div", [6, 3]),
    node(8, "neg", [7]), node(9, "floordiv", [0, 3]), node(10, "mod", [0, 3]),
    node(11, "lt", [0, 3], domain={"type": "boolean"}), node(12, "le", [0, 3], domain={"type": "boolean"}),
    node(13, "gt", [0, 3], domain={"type": "boolean"}), node(14, "ge", [0, 3], domain={"type": "boolean"}),
    node(15, "eq", [1, 3], domain={"type": "boolean"}), node(16, "ne", [1, 3], domain={"type": "boolean"}),
    node(17, "select", [11, 8, 9]), node(18, "relu", [17]), node(19, "sigmoid", [18]),
    node(20, "gather", [1, 4, 5, 6]),
    node(21, "gather_one_hot", [11, 14, 9, 10]),
    node(22, "affine", [19, 20, 21], coefficients=[1.5, -2, 0.1], bias=None),
    node(23, "sparse_affine", [19, 20, 21, 22], coefficients=[0.5, 4], indices=[1, 3], bias=-1),
    node(24, "affine", [23], coefficients=[2], bias=0.5, differentiable=True,
         location={"line": 9, "column": 3}),
]
float32 = [node(0, "input", name="x", domain={"type": "float32", "min": -1, "max": 1}, differentiable=True),
           node(1, "constant", value=0.1), node(2, "mul", [0, 1]), node(3, "sigmoid", [2])]
state = [node(0, "input", name="event", domain={"type": "int32", "min": 0, "max": 3}),
         node(1, "state", name="total", value=0, domain={"type": "int32", "min": 0, "max": 1000}),
         node(2, "state", name="last", value=-1, domain={"type": "int32", "min": -1, "max": 3}),
         node(3, "add", [1, 0])]
per_node = [node(0, "input", name="a", domain={"type": "float64"}, differentiable=True),
            node(1, "constant", value=4),
            node(2, "gt", [0, 1], domain={"type": "boolean"}, semantics="relaxed", surrogate="sigmoid",
                 temperature=0.5),
            node(3, "select", [2, 0, 1], semantics="hybrid", temperature=2)]
doubles = [node(0, "input", name="x", domain={"type": "float64", "min": -1e308, "max": 1e308}),
           node(1, "constant", value=0.1), node(2, "constant", value=-0.0), node(3, "constant", value=5e-324),
           node(4, "constant", value=1.7976931348623157e308), node(5, "constant", value=9007199254740992),
           node(6, "affine", [0, 1, 2, 3, 4, 5], coefficients=[1e-300, 0.3, 2.5, -7, 1 / 3, 1e22], bias=0.7)]

# Nodes of an expanded `for i in range(2): for j in range(3)` loop nest
# keep their iteration path; the input outside the loops has none.
iterations = [node(0, "input", name="a", domain={"type": "int32", "min": -5, "max": 5}),
              node(1, "constant", value=2, iteration=[["i", 1]]),
              node(2, "mul", [0, 1], location={"line": 4, "column": 13}, iteration=[["i", 1], ["j", 2]]),
              node(3, "add", [2, 0], iteration=[["i", -9007199254740992], ["j", 9007199254740992]])]


def table_rows():
    """The rows of core/ir/ops.def as (name, min_args, max_args, kind, flags)."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "..", "core", "ir", "ops.def")
    rows = []
    for line in open(path):
        if not line.startswith("TC_OP("):
            continue
        fields = [f.strip() for f in line[len("TC_OP("):line.rindex(")")].split(",")]
        rows.append((fields[1].strip('"'), int(fields[2]), int(fields[3]), fields[4], fields[9]))
    return rows


# Every one-argument computing op of the table (neg, relu, sigmoid, ...)
# chained over one input, read from ops.def so that a new row is in it
# without an edit here.
one_argument = [node(0, "input", name="x", domain={"type": "float64", "min": -4, "max": 4}, differentiable=True)]
for name, lo, hi, kind, flags in table_rows():
    if lo == hi == 1 and kind != "Leaf" and "kNamed" not in flags and "kHasCoefficients" not in flags:
        one_argument.append(node(len(one_argument), name, [len(one_argument) - 1]))

os.makedirs("roundtrip", exist_ok=True)
files = {
    "all_ops.json": prog(all_ops, {"result": 24, "parts[0]": 17, "parts[1]": 20}),
    "float32.json": prog(float32, {"result": 3}, dtype="float32"),
    "state.json": prog(state, {"result": 1, "previous": 2}, {"1": 3, "2": 0}),
    "per_node.json": prog(per_node, {"result": 3}, semantics="hybrid", temperature=1.5),
    "doubles.json": prog(doubles, {"result": 6}),
    "iterations.json": prog(iterations, {"result": 3}),
    "one_argument_ops.json": prog(one_argument, {"result": len(one_argument) - 1}),
}
for name, doc in files.items():
    with open(os.path.join("roundtrip", name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
print(len(files), "files")
