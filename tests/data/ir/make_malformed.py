#!/usr/bin/env python3
"""Regenerates the malformed-artifact corpus (malformed/*.json) and its
manifest (malformed/EXPECT), one expected message fragment per file.
Run from this folder: python3 make_malformed.py"""
import copy, json, os

def node(i, op, args=(), **kw):
    n = {"id": i, "op": op, "args": list(args), "shape": [], "domain": None,
         "differentiable": False, "location": None}
    n.update(kw)
    return n

BASE = {"format": "tensorcode.program", "version": 1, "semantics": "exact", "dtype": "float64",
        "surrogate": "sigmoid", "temperature": 1.0,
        "nodes": [node(0, "input", name="a", domain={"type": "int32", "min": -128, "max": 127},
                       location={"line": 1, "column": 12}),
                  node(1, "constant", value=4),
                  node(2, "gt", [0, 1], domain={"type": "boolean"}),
                  node(3, "constant", value=10), node(4, "constant", value=12),
                  node(5, "select", [2, 3, 4])],
        "outputs": {"result": 5}, "updates": {}}

cases = {}
def case(name, expect, mutate=None, text=None):
    if text is None:
        doc = copy.deepcopy(BASE)
        mutate(doc)
        text = json.dumps(doc)
    cases[name] = (text, expect)

def setn(i, **kw):
    def f(d):
        d["nodes"][i].update(kw)
    return f
def deln(i, key):
    def f(d):
        del d["nodes"][i][key]
    return f
def root(**kw):
    def f(d):
        d.update(kw)
    return f
def delroot(key):
    def f(d):
        del d[key]
    return f

case("truncated", "invalid json", text=json.dumps(BASE)[:150])
case("empty", "invalid json", text="")
case("not_object", "must be a json object", text="[1, 2, 3]")
case("trailing_garbage", "invalid json", text=json.dumps(BASE) + " }")
case("deep_nesting", "nests deeper", text="[" * 5000 + "]" * 5000)
case("wrong_format", "field 'format'", root(format="tensorcode.snapshot"))
case("wrong_version", "field 'version'", root(version=2))
case("missing_nodes", "field 'nodes' is missing", delroot("nodes"))
case("bad_semantics", "field 'semantics'", root(semantics="fuzzy"))
case("bad_dtype", "field 'dtype'", root(dtype="float16"))
case("bad_surrogate", "field 'surrogate'", root(surrogate="tanh"))
case("zero_temperature", "temperature", root(temperature=0))
case("negative_temperature", "temperature", root(temperature=-1.5))
case("unknown_root_field", "unknown field 'extra'", root(extra=1))
case("unknown_op", "unknown op 'pow'", setn(2, op="pow"))
case("id_mismatch", "node 3", setn(3, id=7))
case("forward_reference", "not a smaller node id", setn(2, args=[0, 4]))
case("self_reference", "not a smaller node id", setn(2, args=[2, 1]))
case("negative_arg", "node 2 (gt): field 'args'", setn(2, args=[-1, 1]))
case("wrong_arity", "expected 2 arguments", setn(2, args=[0]))
case("select_arity", "expected 3 arguments", setn(5, args=[2, 3]))
case("fractional_arg", "must be an integer", setn(2, args=[0.5, 1]))
case("string_arg", "must be an integer", setn(2, args=["0", 1]))
case("missing_domain_on_input", "field 'domain' is required", setn(0, domain=None))
case("bad_domain_type", "domain.type", setn(0, domain={"type": "int64"}))
case("domain_min_above_max", "min is above max", setn(0, domain={"type": "int32", "min": 5, "max": 1}))
case("domain_out_of_int32", "can represent", setn(0, domain={"type": "int32", "min": 0, "max": 1e12}))
case("fractional_int_bounds", "must be integers", setn(0, domain={"type": "int32", "min": 0.5, "max": 3}))
case("missing_name", "field 'name' is missing", deln(0, "name"))
case("name_on_constant", "not allowed on this op", setn(1, name="c"))
case("missing_value", "field 'value' is missing", deln(1, "value"))
case("huge_value", "number overflow", text=json.dumps(BASE).replace('"value": 4', '"value": 1e999'))
case("inexact_integer", "cannot represent exactly", text=json.dumps(BASE).replace('"value": 4', '"value": 9007199254740993'))
case("shape_not_scalar", "field 'shape'", setn(3, shape=[2]))
case("differentiable_not_bool", "field 'differentiable'", setn(0, differentiable="yes"))
case("bad_location", "location.line", setn(0, location={"line": 0, "column": 1}))
case("output_missing_node", "refers to missing node", root(outputs={"result": 99}))
case("no_outputs", "at least one output", root(outputs={}))
case("update_not_state", "is not a state node", root(updates={"1": 5}))
case("update_bad_key", "expected a state node id", root(updates={"01": 5}))
case("node_not_object", "must be an object", lambda d: d["nodes"].__setitem__(3, 42))
case("affine_missing_bias", "field 'bias' is missing",
     lambda d: d["nodes"].__setitem__(5, node(5, "affine", [0, 3], coefficients=[1, 2])))
case("affine_coefficient_count", "one coefficient per argument",
     lambda d: d["nodes"].__setitem__(5, node(5, "affine", [0, 3], coefficients=[1], bias=None)))
case("sparse_indices_unsorted", "strictly ascending",
     lambda d: d["nodes"].__setitem__(5, node(5, "sparse_affine", [0, 3, 4], coefficients=[1, 2],
                                              indices=[2, 1], bias=None)))
case("gather_one_hot_odd", "even count", setn(5, op="gather_one_hot", args=[2, 3, 4]))
case("duplicate_input", "duplicate input name",
     lambda d: d["nodes"].__setitem__(1, node(1, "input", name="a", domain={"type": "float64"})))
case("state_initial_outside_domain", "initial",
     lambda d: d["nodes"].__setitem__(1, node(1, "state", name="s", value=500,
                                              domain={"type": "int32", "min": 0, "max": 10})))
case("nan_literal", "invalid json", text=json.dumps(BASE).replace('"value": 4', '"value": NaN'))
case("call_without_name", "field 'name' is missing", setn(5, op="call", args=[0]))
case("iteration_not_array", "field 'iteration' must be an array", setn(2, iteration={"i": 3}))
case("iteration_empty", "field 'iteration' must not be empty", setn(2, iteration=[]))
case("iteration_not_pair", "field 'iteration[0]' must be a [name, integer] pair", setn(2, iteration=[["i", 3, 4]]))
case("iteration_nameless", "field 'iteration[1]' must start with a non-empty loop variable name",
     setn(2, iteration=[["i", 3], ["", 1]]))
case("iteration_float", "field 'iteration[0]' must end with an integer", setn(2, iteration=[["i", 3.0]]))
case("iteration_too_large", "field 'iteration[0]' is out of range", setn(2, iteration=[["i", 9007199254740993]]))

os.makedirs("malformed", exist_ok=True)
for f in os.listdir("malformed"):
    os.remove(os.path.join("malformed", f))
with open("malformed/EXPECT", "w") as m:
    m.write("# file<TAB>fragment the error message must contain (generated by ../make_malformed.py)\n")
    for name, (text, expect) in sorted(cases.items()):
        with open(f"malformed/{name}.json", "w") as f:
            f.write(text)
        m.write(f"{name}.json\t{expect}\n")
print(len(cases), "cases")
