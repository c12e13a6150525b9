#!/usr/bin/env python3
"""Writes ops_table.jsonl: one evaluator case per line, with the expected
value computed here by CPython (binary64, Python's // and %, libm exp) and
struct-packing for binary32 rounding, independently of the C++ evaluator.

Fields: op, args (input values, in the node's argument order), dtype,
semantics, temperature, optional coefficients/indices/bias (name: a raise's
exception), and either
"expect" (the exact double) or "error" (a substring of the message).

usage: python3 make_ops_table.py > ops_table.jsonl
"""
import json
import math
import struct
import sys

INF = float("inf")


def f32(v):
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return math.copysign(INF, v)


def sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def relaxed_eq(x, y, t):
    z = (x - y) / t
    return math.exp(-(z * z))


class Err(Exception):
    pass


# The math module's ops are the C library's functions with no domain check
# of their own (the frontend guards the domain): CPython's math module calls
# the same functions and raises instead of returning these values.
POLE = {"log": 0.0, "log2": 0.0, "log10": 0.0, "log1p": -1.0}
MATH = ("sqrt", "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "atan", "tanh")


def c_math(name, x):
    try:
        return getattr(math, name)(x)
    except OverflowError:  # exp, expm1 of a large x: the C function's +inf
        return INF
    except ValueError:  # outside the domain: -inf at the pole, else nan
        return -INF if x == POLE.get(name) else float("nan")


def finish(r, rnd, unrounded_ok=True):
    out = rnd(r)
    if math.isnan(out):
        raise Err("result is nan")
    if math.isinf(out):
        raise Err("overflows float32" if not math.isinf(r) and not math.isnan(r) else "result is infinite")
    return out


def evaluate(case):
    rnd = f32 if case["dtype"] == "float32" else (lambda v: v)
    relaxed = case["semantics"] == "relaxed"
    t = case.get("temperature", 1.0)
    a = [rnd(float(v)) for v in case["args"]]  # inputs enter rounded under float32
    if any(math.isinf(v) for v in a):
        raise Err("is outside the float32 range")
    op = case["op"]
    if op in ("add", "sub", "mul"):
        r = {"add": a[0] + a[1], "sub": a[0] - a[1], "mul": a[0] * a[1]}[op]
    elif op == "neg":
        r = -a[0]
    elif op == "raise":  # reached: always fails, naming its exception
        raise Err("raised " + case["name"])
    elif op in ("div", "floordiv", "mod"):
        if a[1] == 0:
            raise Err("division by zero")
        r = {"div": lambda: a[0] / a[1], "floordiv": lambda: a[0] // a[1], "mod": lambda: a[0] % a[1]}[op]()
    elif op in ("lt", "le", "gt", "ge", "eq", "ne"):
        x, y = a
        if relaxed:
            r = {"lt": lambda: sigmoid((y - x) / t), "le": lambda: sigmoid((y - x) / t),
                 "gt": lambda: sigmoid((x - y) / t), "ge": lambda: sigmoid((x - y) / t),
                 "eq": lambda: relaxed_eq(x, y, t), "ne": lambda: 1.0 - relaxed_eq(x, y, t)}[op]()
        else:
            r = float({"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y, "eq": x == y, "ne": x != y}[op])
    elif op == "select":
        c, yes, no = a
        r = c * yes + (1.0 - c) * no if relaxed else (yes if c != 0 else no)
    elif op == "relu":
        r = a[0] if a[0] > 0 else 0.0
    elif op == "sigmoid":
        r = sigmoid(a[0])
    elif op == "square":
        r = a[0] * a[0]
    elif op in MATH:
        r = c_math(op, a[0])
    elif op == "gather":
        idx, vals = a[0], a[1:]
        if relaxed:
            num = den = 0.0
            for k, v in enumerate(vals):
                w = relaxed_eq(idx, float(k), t)
                num = num + w * v
                den = den + w
            if den == 0:
                raise Err("relaxed gather weights are all zero")
            r = num / den
        else:
            if idx != math.floor(idx):
                raise Err("is not an integer")
            if not 0 <= idx < len(vals):
                raise Err("is out of range for %d values" % len(vals))
            r = vals[int(idx)]
    elif op == "gather_one_hot":
        n = len(a) // 2
        sels, vals = a[:n], a[n:]
        if relaxed:
            r = sels[0] * vals[0]
            for k in range(1, n):
                r = r + sels[k] * vals[k]
        else:
            for k, s in enumerate(sels):
                if s not in (0.0, 1.0):
                    raise Err("selector %d is" % k)
            ones = sum(1 for s in sels if s == 1.0)
            if ones == 0:
                raise Err("no selector is 1")
            if ones > 1:
                raise Err("%d selectors are 1" % ones)
            r = vals[sels.index(1.0)]
    elif op in ("affine", "sparse_affine"):
        cs = [rnd(float(c)) for c in case["coefficients"]]
        xs = [a[i] for i in case["indices"]] if op == "sparse_affine" else a
        acc = rnd(cs[0] * xs[0])
        for c, x in zip(cs[1:], xs[1:]):
            acc = rnd(acc + rnd(c * x))
        if case.get("bias") is not None:
            acc = rnd(acc + rnd(float(case["bias"])))
        r = acc
    else:
        raise ValueError(op)
    return finish(r, rnd)


def cases():
    exact_binary = {
        "add": [(1, 2), (0.1, 0.2), (-3.5, 3.5), (1e308, 1e308), (3e38, 3e38), (1e-40, 1e-45)],
        "sub": [(5, 3), (0.3, 0.1), (-1e308, 1e308), (1, 1e-9)],
        "mul": [(3, 4), (0.1, 3), (1e200, 1e200), (1e20, 1e20), (-2, 0)],
        "div": [(1, 3), (7, 2), (1, 0), (0, 0), (-1, 0), (1e300, 1e-10), (2, 3e-39)],
        "floordiv": [(7, 2), (-7, 2), (7, -2), (-7, -2), (7.5, 2), (1, 0), (-0.5, 1e300), (1e308, 1e-308)],
        "mod": [(7, 2), (-7, 2), (7, -2), (-7, -2), (5.5, 2), (1, 0), (-1e-20, 1), (0.1, 0.03)],
        "lt": [(1, 2), (2, 2), (3, 2)], "le": [(1, 2), (2, 2), (3, 2)],
        "gt": [(1, 2), (2, 2), (3, 2)], "ge": [(1, 2), (2, 2), (3, 2)],
        "eq": [(1, 2), (2, 2), (0.1, 0.1000000001)], "ne": [(1, 2), (2, 2)],
    }
    for dtype in ("float64", "float32"):
        for op, pairs in exact_binary.items():
            for x, y in pairs:
                yield {"op": op, "args": [x, y], "dtype": dtype, "semantics": "exact"}
        for v in (-1.5, 0, 0.1, 3e38):
            yield {"op": "neg", "args": [v], "dtype": dtype, "semantics": "exact"}
        for v in (-1, 0, 2.5, 0.1):
            yield {"op": "relu", "args": [v], "dtype": dtype, "semantics": "exact"}
        for v in (0, 1.5, -1.5, 800, -800, 36.7, -36.7):
            yield {"op": "sigmoid", "args": [v], "dtype": dtype, "semantics": "exact"}
        for c in (1, 0, 2, -0.5):
            yield {"op": "select", "args": [c, 5.1, 6.2], "dtype": dtype, "semantics": "exact"}
        for idx in (0, 1, 2, 3, -1, 1.5):
            yield {"op": "gather", "args": [idx, 10.1, 20.2, 30.3], "dtype": dtype, "semantics": "exact"}
        for sels in ([0, 1, 0], [1, 0, 0], [0, 0, 0], [1, 1, 0], [0.5, 0.5, 0], [0, 2, 0]):
            yield {"op": "gather_one_hot", "args": sels + [10.1, 20.2, 30.3], "dtype": dtype, "semantics": "exact"}
        yield {"op": "affine", "args": [1.5, 2.25, -3], "coefficients": [0.1, 0.2, 0.3], "bias": 0.7,
               "dtype": dtype, "semantics": "exact"}
        yield {"op": "affine", "args": [1e-3, 7], "coefficients": [1e8, 0.1], "bias": None,
               "dtype": dtype, "semantics": "exact"}
        yield {"op": "affine", "args": [1e200, 1], "coefficients": [1e200, 1], "bias": None,
               "dtype": dtype, "semantics": "exact"}
        yield {"op": "sparse_affine", "args": [1.1, 2.2, 3.3, 4.4], "indices": [1, 3], "coefficients": [2.5, 0.1],
               "bias": -0.3, "dtype": dtype, "semantics": "exact"}
        yield {"op": "sparse_affine", "args": [1.1, 2.2], "indices": [0], "coefficients": [0.7], "bias": None,
               "dtype": dtype, "semantics": "exact"}
        # Hybrid forward is the exact semantics.
        for op in ("gt", "eq", "lt"):
            yield {"op": op, "args": [2, 1], "dtype": dtype, "semantics": "hybrid"}
        yield {"op": "select", "args": [0.25, 4, 8], "dtype": dtype, "semantics": "hybrid"}
        yield {"op": "gather", "args": [1.5, 1, 2, 3], "dtype": dtype, "semantics": "hybrid"}
        # Relaxed forms at two temperatures.
        for t in (1.0, 0.25):
            for op in ("lt", "le", "gt", "ge", "eq", "ne"):
                for x, y in ((1, 2), (2, 2), (3.5, 2), (1e308, -1e308)):
                    yield {"op": op, "args": [x, y], "dtype": dtype, "semantics": "relaxed", "temperature": t}
            yield {"op": "select", "args": [0.25, 4, 8], "dtype": dtype, "semantics": "relaxed", "temperature": t}
            for idx in (1.2, 0, -3, 2.5):
                yield {"op": "gather", "args": [idx, 10, 20, 30], "dtype": dtype, "semantics": "relaxed",
                       "temperature": t}
            yield {"op": "gather", "args": [100, 10, 20, 30], "dtype": dtype, "semantics": "relaxed",
                   "temperature": t}
            yield {"op": "gather_one_hot", "args": [0.2, 0.3, 0.5, 1, 2, 3], "dtype": dtype,
                   "semantics": "relaxed", "temperature": t}
        # Relaxed nodes still reject division by zero and non-finite values.
        yield {"op": "div", "args": [1, 0], "dtype": dtype, "semantics": "relaxed"}
        yield {"op": "mul", "args": [1e200, 1e200], "dtype": dtype, "semantics": "relaxed"}
        yield {"op": "add", "args": [0.1, 0.2], "dtype": dtype, "semantics": "relaxed"}
    # raise (no arguments): the case fails with its exception, in every
    # semantics and both widths.
    for dtype in ("float64", "float32"):
        for sem in ("exact", "relaxed", "hybrid"):
            yield {"op": "raise", "args": [], "name": "ValueError: x must be positive", "dtype": dtype,
                   "semantics": sem}
        yield {"op": "raise", "args": [], "name": "AssertionError", "dtype": dtype, "semantics": "exact"}
    # square (x*x, one rounding): exact, rounding, overflowing, tiny, in both
    # widths and every semantics (it has one form).
    for dtype in ("float64", "float32"):
        for v in (3, -1.5, 0.1, 1e200, -2e19, 1e-200, 1.00000001):
            yield {"op": "square", "args": [v], "dtype": dtype, "semantics": "exact"}
        yield {"op": "square", "args": [-0.7], "dtype": dtype, "semantics": "relaxed"}
        yield {"op": "square", "args": [2e154], "dtype": dtype, "semantics": "hybrid"}
    # The math module's functions: ordinary values, rounding ones, underflow,
    # overflow (float64 and float32's own), the pole and outside the domain
    # (non-finite results: the frontend raises before them), in both widths;
    # they have one form in every semantics.
    values = {
        "sqrt": (4, 2, 0.5, -0.0, 0, 1e-310, 1e308, 1e-30, -1, 1e76),
        "exp": (0, 1, -1, 0.1, 88.5, 709, 710, -1000, 100, 1e-10),
        "expm1": (1e-10, -40, 1, 0.1, 89, 710, -0.0),
        "log": (1, 2, 0.5, 1e-310, 1e308, 0, -0.0, -1, 10),
        "log2": (8, 3, 0.1, 0, -2, 1e300),
        "log10": (1000, 0.001, 7, 0, -1, 1e-300),
        "log1p": (1e-12, -0.5, -1, -2, 1e300, 3, -0.0),
        "sin": (0, -0.0, 1, 3.141592653589793, 1e22, -2.5, 1e-300),
        "cos": (0, 1, 1.5707963267948966, 1e22, -2.5),
        "tan": (0, 1, 1.5707963267948966, -1.5707963267948966, 1e22, 1e-300),
        "atan": (0, 1, -1e300, 1e300, 0.5, -0.0),
        "tanh": (0, 0.5, -20, 400, -1e-300, -0.0),
    }
    for op in MATH:
        for dtype in ("float64", "float32"):
            for v in values[op]:
                yield {"op": op, "args": [v], "dtype": dtype, "semantics": "exact"}
            yield {"op": op, "args": [0.75], "dtype": dtype, "semantics": "relaxed"}
            yield {"op": op, "args": [1.5], "dtype": dtype, "semantics": "hybrid"}


def main():
    for case in cases():
        try:
            case["expect"] = evaluate(case)
        except Err as e:
            case["error"] = str(e)
        sys.stdout.write(json.dumps(case) + "\n")


if __name__ == "__main__":
    main()
