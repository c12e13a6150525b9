#!/usr/bin/env python3
"""Writes closed_form.json: hand-derived values and gradients of every
computing op under exact, relaxed and hybrid semantics.

Independent of the C++ code: the formulas below are written from contract
section 4, in Python's binary64 arithmetic. Regenerate with
    python3 tests/data/grad/make_closed_form.py > tests/data/grad/closed_form.json
"""
import json
import math


def sig(x):
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


def dsig(x):  # logistic slope
    s = sig(x)
    return s * (1 - s) if abs(x) < 30 else math.exp(-abs(x))


def floordiv(a, b):
    return a // b


cases = []


def add(op, sem, t, args, result, grads, **extra):
    c = {"op": op, "semantics": sem, "temperature": t, "args": args, "result": result, "gradients": grads}
    c.update(extra)
    cases.append(c)


ALL = ("exact", "relaxed", "hybrid")
for sem in ALL:
    for t in (1.0, 2.0):
        a, b = 1.5, -2.25
        add("add", sem, t, [a, b], a + b, [1, 1])
        add("sub", sem, t, [a, b], a - b, [1, -1])
        add("mul", sem, t, [a, b], a * b, [b, a])
        add("div", sem, t, [a, b], a / b, [1 / b, -a / (b * b)])
        add("neg", sem, t, [a], -a, [-1])
        add("floordiv", sem, t, [7.5, -2.0], floordiv(7.5, -2.0), [0, 0])
        add("mod", sem, t, [7.5, -2.0], 7.5 % -2.0, [1, -floordiv(7.5, -2.0)])
        add("mod", sem, t, [-7.0, 3.0], -7.0 % 3.0, [1, -floordiv(-7.0, 3.0)])
        add("relu", sem, t, [a], a, [1])
        add("relu", sem, t, [b], 0.0, [0])
        add("relu", sem, t, [0.0], 0.0, [0])  # relu'(0) = 0
        add("sigmoid", sem, t, [0.75], sig(0.75), [dsig(0.75)])
        add("sigmoid", sem, t, [800.0], 1.0, [0.0])  # far tails: no overflow, no NaN
        add("sigmoid", sem, t, [-800.0], 0.0, [0.0])
        add("sigmoid", sem, t, [-30.0], sig(-30.0), [dsig(-30.0)])
        # affine: 0.5*x0 + -2*x1 + 3*x2 + 0.25
        xs = [1.0, 2.0, -1.5]
        add("affine", sem, t, xs, ((0.5 * 1.0 + -2.0 * 2.0) + 3.0 * -1.5) + 0.25, [0.5, -2.0, 3.0],
            coefficients=[0.5, -2.0, 3.0], bias=0.25)
        add("sparse_affine", sem, t, xs, (4.0 * 1.0 + -1.0 * -1.5), [4.0, 0.0, -1.0],
            coefficients=[4.0, -1.0], indices=[0, 2], bias=None)

        # comparisons at x=1.5, y=0.5 (and equality near its centre)
        for (x, y) in ((1.5, 0.5), (0.5, 1.5)):
            z = (x - y) / t
            if sem == "exact" or sem == "hybrid":
                hard = {"gt": x > y, "ge": x >= y, "lt": x < y, "le": x <= y, "eq": x == y, "ne": x != y}
            if sem == "relaxed":
                vals = {"gt": sig(z), "ge": sig(z), "lt": sig(-z), "le": sig(-z),
                        "eq": math.exp(-z * z), "ne": 1 - math.exp(-z * z)}
            else:
                vals = {k: 1.0 if v else 0.0 for k, v in hard.items()}
            if sem == "exact":
                slopes = {k: 0.0 for k in vals}
            else:
                deq = -2 * z * math.exp(-z * z) / t
                slopes = {"gt": dsig(z) / t, "ge": dsig(z) / t, "lt": -dsig(-z) / t, "le": -dsig(-z) / t,
                          "eq": deq, "ne": -deq}
            for op in ("gt", "ge", "lt", "le", "eq", "ne"):
                add(op, sem, t, [x, y], vals[op], [slopes[op], -slopes[op]])

        # select(c, a, b) with a = 3, b = -2
        ya, nb = 3.0, -2.0
        for c in (1.0, 0.0):
            if sem == "exact":
                add("select", sem, t, [c, ya, nb], ya if c else nb, [0, c, 1 - c])
            else:
                add("select", sem, t, [c, ya, nb], ya if c else nb, [ya - nb, c, 1 - c])
        if sem == "relaxed":
            c = 0.25
            add("select", sem, t, [c, ya, nb], c * ya + (1 - c) * nb, [ya - nb, c, 1 - c])

        # gather(index; values)
        vals = [2.0, -1.0, 4.0]
        def soft(i):
            w = [math.exp(-((i - k) / t) ** 2) for k in range(3)]
            num = 0.0
            den = 0.0
            for k in range(3):
                num = num + w[k] * vals[k]
                den = den + w[k]
            ws = [x / den for x in w]
            ls = [-2 * (i - k) / t / t for k in range(3)]
            lm = sum(ws[k] * ls[k] for k in range(3))
            di = sum(ws[k] * (ls[k] - lm) * vals[k] for k in range(3))
            return num / den, ws, di
        for i in (1.0, 2.0):
            _, _, di = soft(i)
            onehot = [1.0 if k == i else 0.0 for k in range(3)]
            if sem == "exact":
                add("gather", sem, t, [i] + vals, vals[int(i)], [0.0] + onehot)
            elif sem == "hybrid":
                add("gather", sem, t, [i] + vals, vals[int(i)], [di] + onehot)
        if sem == "relaxed":
            for i in (1.0, 0.4):
                r, ws, di = soft(i)
                add("gather", sem, t, [i] + vals, r, [di] + ws)

        # gather_one_hot(selectors; values)
        if sem == "relaxed":
            sel = [0.2, 0.5, 0.3]
        else:
            sel = [0.0, 1.0, 0.0]
        r = sel[0] * vals[0] + sel[1] * vals[1] + sel[2] * vals[2]
        dsel = [0.0] * 3 if sem == "exact" else vals[:]
        dval = sel[:]
        add("gather_one_hot", sem, t, sel + vals, r, dsel + dval)

# square(x) = x*x, square'(x) = 2x: one form in every semantics.
for sem in ALL:
    for t in (1.0, 2.0):
        for x in (1.5, -2.25, 0.0):
            add("square", sem, t, [x], x * x, [2 * x])

# The math module's functions, each with its textbook derivative: one form
# in every semantics.
MATH = {
    "sqrt": (math.sqrt, lambda x: 1 / (2 * math.sqrt(x)), (0.25, 2.0, 9.0)),
    "exp": (math.exp, math.exp, (0.5, -3.0, 2.0)),
    "expm1": (math.expm1, math.exp, (1e-9, -3.0, 2.0)),
    "log": (math.log, lambda x: 1 / x, (0.5, 3.0, 1e5)),
    "log2": (math.log2, lambda x: 1 / (x * math.log(2)), (0.5, 3.0, 1024.0)),
    "log10": (math.log10, lambda x: 1 / (x * math.log(10)), (0.5, 3.0, 1000.0)),
    "log1p": (math.log1p, lambda x: 1 / (1 + x), (1e-9, -0.5, 3.0)),
    "sin": (math.sin, math.cos, (0.5, -3.0, 2.0)),
    "cos": (math.cos, lambda x: -math.sin(x), (0.5, -3.0, 2.0)),
    "tan": (math.tan, lambda x: 1 / math.cos(x) ** 2, (0.5, -3.0, 1.2)),
    "atan": (math.atan, lambda x: 1 / (1 + x * x), (0.5, -3.0, 20.0)),
    "tanh": (math.tanh, lambda x: 1 - math.tanh(x) ** 2, (0.5, -3.0, 2.0)),
}
for op, (f, df, xs) in MATH.items():
    for sem in ALL:
        for t in (1.0, 2.0):
            for x in xs:
                add(op, sem, t, [x], f(x), [df(x)])

print(json.dumps({"note": "generated by make_closed_form.py; see its docstring", "cases": cases}, indent=1))
