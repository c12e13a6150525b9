#!/usr/bin/env python3
"""Writes the example artifacts used by tests/grad/golden_test.cpp and
docs/gradients.md, spelled by hand from contract section 2 (independent of
the C++ saver). Run from this folder: python3 make_examples.py"""
import json


def node(i, op, args=(), **kw):
    n = {"id": i, "op": op, "args": list(args), "shape": [], "domain": None, "differentiable": False, "location": None}
    n.update(kw)
    return n


def program(nodes, out, semantics="exact", temperature=1.0):
    return {"format": "tensorcode.program", "version": 1, "semantics": semantics, "dtype": "float64",
            "surrogate": "sigmoid", "temperature": temperature, "nodes": nodes, "outputs": {"result": out},
            "updates": {}}


F64 = {"type": "float64"}
EXACT = {"semantics": "exact", "surrogate": "sigmoid", "temperature": 1.0}

# The description's Builder example: select(x > 4, weight * x, 0), hybrid.
gated = program([
    node(0, "input", name="x", domain={"type": "float64", "min": -100.0, "max": 100.0}, differentiable=True),
    node(1, "parameter", name="weight", value=0.0, differentiable=True),
    node(2, "constant", value=4), node(3, "gt", [0, 2], domain={"type": "boolean"}),
    node(4, "mul", [1, 0]), node(5, "constant", value=0),
    node(6, "select", [3, 4, 5])], 6, semantics="hybrid")

# The learned-correction example: the rule `10 if a > 4 else 12` included
# under the prefix "algorithm" (its computing nodes carry the rule's own
# exact policy), plus correction * x.
corrected = program([
    node(0, "input", name="x", domain=F64, differentiable=True),
    node(1, "parameter", name="correction", value=0.0, differentiable=True),
    node(2, "constant", value=4), node(3, "gt", [0, 2], domain={"type": "boolean"}, **EXACT),
    node(4, "constant", value=10), node(5, "constant", value=12),
    node(6, "select", [3, 4, 5], **EXACT),
    node(7, "mul", [1, 0]), node(8, "add", [6, 7])], 8)

# A hybrid select whose unchosen branch divides by zero at x = 5.
inactive = program([
    node(0, "input", name="x", domain=F64, differentiable=True),
    node(1, "constant", value=4), node(2, "gt", [0, 1], domain={"type": "boolean"}),
    node(3, "constant", value=2), node(4, "mul", [0, 3]),
    node(5, "constant", value=5), node(6, "sub", [0, 5]),
    node(7, "constant", value=1), node(8, "div", [7, 6]),
    node(9, "select", [2, 4, 8])], 9, semantics="hybrid")

for name, doc in (("gated", gated), ("learned_correction", corrected), ("inactive_branch", inactive)):
    with open(name + ".json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
with open("learned_correction_cases.jsonl", "w") as f:
    f.write('{"x": 5, "y": 11}\n')
