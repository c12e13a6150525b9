"""tensorcode.program: compile bounded Python functions (or build programs
with Builder) into a checked scalar circuit, then run, differentiate, verify,
optimize and replay them. A thin layer over the C++ core: every evaluation,
gradient, check and pass happens there.

Importing this package never imports torch; Program.to_tensor_module() does.
"""
import dataclasses as _dataclasses
import json as _json
from typing import Any as _Any

try:
    from . import _core
except ImportError as _error:
    # An extension built for another interpreter would otherwise surface as
    # CPython's misleading "partially initialized module ... circular import".
    from ._extension import import_error as _import_error
    _explained = _import_error(_error, __path__)
    if _explained is None:
        raise
    raise _explained from None
from .errors import ArtifactError, CompileError, EvaluationError, VerificationError

_core.register_errors(CompileError, EvaluationError, ArtifactError, VerificationError)

# Inside a Jupyter kernel without ipywidgets, the first import of tqdm.auto
# (torch does it) warns "IProgress not found"; loaded here quietly, it does not.
from ._torch import quiet_tqdm_in_notebook as _quiet_tqdm_in_notebook  # noqa: E402

_quiet_tqdm_in_notebook()

__all__ = [
    "compile", "int32", "boolean", "float32", "float64", "Domain", "Builder", "Program", "Runtime",
    "analyze", "verified_replacement", "CompileError", "EvaluationError", "ArtifactError",
    "VerificationError", "diff", "Diff", "prove",
]

Domain = _core.Domain
_run = _core.run


def int32(min=None, max=None):  # noqa: A002 - the description's spelling
    """Integers in [min, max] (default: the whole int32 range)."""
    return _core.int32(min, max)


def boolean():
    """A 0/1 wire."""
    return _core.boolean()


def float32(min=None, max=None):  # noqa: A002
    """Finite binary32 values in [min, max]."""
    return _core.float32(min, max)


def float64(min=None, max=None):  # noqa: A002
    """Finite binary64 values in [min, max] (default: every finite value)."""
    return _core.float64(min, max)


def _domain(value, name):
    if isinstance(value, Domain):
        return value
    if isinstance(value, str):
        return _core.parse_domain(value)
    raise TypeError(f"the domain of input '{name}' must be int32(...), boolean(), float32(...), float64(...) "
                    f"or a spelling such as 'int32:-128:127', not {type(value).__name__}")


def _core_of(program):
    if isinstance(program, Program):
        return program._c
    raise TypeError(f"expected a tensorcode.program.Program, not {type(program).__name__}")


class Program:
    """A validated circuit. Build one with compile(), Builder.build() or
    Program.from_json(); it is immutable (freeze, optimize, bind return new
    programs)."""

    __slots__ = ("_c", "_reference", "_source", "_warnings", "_bound", "_stepper")

    def __init__(self, core, *, reference=None, source=None, warnings=()):
        if not isinstance(core, _core.Program):
            raise TypeError("use compile(), Builder.build() or Program.from_json() to make a Program")
        self._c = core
        self._reference = reference
        self._source = source
        self._warnings = tuple(warnings)
        self._bound = None
        self._stepper = None

    def _derive(self, core):
        return Program(core, reference=self._reference, source=self._source)

    def _with(self, bindings):
        if bindings is None:
            return self._c
        # One prepared program per bindings dict, until the dict changes.
        key = tuple(bindings.items()) if isinstance(bindings, dict) else None
        cached = self._bound
        if cached is not None and cached[0] is bindings and cached[1] == key:
            return cached[2]
        core = self._c.bind(bindings)
        self._bound = (bindings, key, core)
        return core

    # -- evaluation -------------------------------------------------------
    def run(self, inputs, *, params=None, bindings=None, plan=None):
        """Runs one checked case: {output name: value}. `params` overrides
        stored parameter values by name. `plan` picks the tier: "auto" (the
        default: interpret, and compile generated C in the background once
        the work seen pays for it), "interpreter" or "compiled" (compile
        before the first case); the values are the same either way."""
        try:
            if plan is None:
                if bindings is None:
                    return _run(self._c, inputs, params)
                return _run(self._with(bindings), inputs, params)
            return self._with(bindings).run(inputs, params, plan)
        except EvaluationError as e:
            _add_name_hint(e, inputs, self._c)
            raise

    def run_batch(self, cases, *, params=None, bindings=None, errors="raise", threads=1, plan=None):
        """Runs many cases with the batched evaluator. `cases` is a list of
        input dicts (returns a list of output dicts) or a dict of columns such
        as numpy arrays (returns a dict of float64 numpy arrays). A failing
        case raises EvaluationError (with .case), or gives NaN outputs with
        errors="nan". `threads` cores share the cases (0: every core; a
        program with call nodes runs on one). `plan` as for run()."""
        try:
            return self._with(bindings).run_batch(cases, params, errors, _thread_count(threads), plan)
        except EvaluationError as e:
            _add_name_hint(e, cases, self._c)
            raise

    def plan_status(self, *, bindings=None):
        """Which tier the last run()/run_batch() used: {"summary":
        "compiled (avx2)" or "interpreting: compiling in background" or
        "interpreting: <why>", "compiled", "compiling", "reason", "isa",
        "cache_hit", "compile_seconds", "path", "compiled_cases",
        "handed_back"}."""
        return self._with(bindings).plan_status()

    def gradients(self, inputs, output="result", *, params=None, bindings=None):
        """{name: d output / d name} for the differentiable inputs and
        parameters, in the program's semantics (exact, relaxed or hybrid)."""
        try:
            return self._with(bindings).gradients(inputs, output, params)
        except EvaluationError as e:
            _add_name_hint(e, inputs, self._c)
            raise

    def gradients_batch(self, columns, output="result", *, seeds=None, params=None, bindings=None, errors="raise",
                        threads=1):
        """The batched VJP without torch: `columns` maps every input to a 1-d
        array (one case per element) or a number shared by every case.
        Returns {"value": output per case, "inputs": {input: per-case
        d(seed * output)/d(input)}, "parameters": {parameter: that summed over
        the cases, in case order}, "failed": [case, ...]}. `seeds` (default 1)
        weights each case's output. Every case equals gradients() on it alone,
        bit for bit. A failing case raises EvaluationError with .case, or with
        errors="nan" gets a NaN value and zero gradients and is listed in
        "failed" (and left out of the sums). `threads` cores share the cases."""
        try:
            return self._with(bindings).gradients_batch(columns, output, seeds, params, errors, int(threads))
        except EvaluationError as e:
            _add_name_hint(e, columns, self._c)
            raise

    def step(self, inputs, state=None, *, bindings=None):
        """One pure event: (outputs, next_state). `state` defaults to the
        initial state; nothing is committed (see Runtime for that)."""
        if bindings is None and self._stepper is not None:
            stepper = self._stepper
        else:
            stepper = _core.Runtime(self._c, 1, bindings)
            if bindings is None:
                self._stepper = stepper
        try:
            return stepper.step(inputs, state)
        except EvaluationError as e:
            _add_name_hint(e, inputs, self._c)
            raise

    # -- verification -----------------------------------------------------
    def verify(self, reference=None, *, cases=None, max_cases=100000, atol=0, rtol=0, samples=10000,
               bindings=None):
        """Compares the circuit with an independent reference (contract
        section 5) and returns {"cases", "exhaustive", "passed", "mismatches"}.
        Without `reference`, a program compiled from a function is checked
        against that function. `reference` may be a callable (called with
        the inputs as keyword arguments), Python source text or a Program.
        `cases` (a list of input dicts) is used when the domains cannot be
        enumerated within max_cases."""
        if reference is None:
            reference = self._reference
            if reference is None:
                raise VerificationError(
                    "this program has no Python function to verify against (it was compiled from source text, "
                    "built or loaded): pass reference=a function, source text or a Program")
        elif isinstance(reference, str):
            reference = _function_from_source(reference, self._function_name())
        if isinstance(reference, Program):
            reference = reference._c
        max_cases = _positive_count(max_cases, "max_cases")
        samples = _positive_count(samples, "samples")
        if cases is not None and not isinstance(cases, str):
            cases = "\n".join(_case_json(i, c) for i, c in enumerate(cases)) + "\n"
        from .display import VerificationReport
        return VerificationReport(_core.verify(self._with(bindings), reference, cases, int(max_cases), float(atol),
                                               float(rtol), int(samples)))

    def _function_name(self):
        ref = self._reference
        return getattr(ref, "__name__", None)

    # -- passes and views -------------------------------------------------
    def optimize(self):
        """Checked constant folding, dead-code elimination and affine packing:
        a program with bit-identical results."""
        core, _stats = self._c.optimize()
        return self._derive(core)

    def schedule(self):
        """Dependency layers: a list of lists of node ids."""
        return self._c.schedule()

    def graph(self):
        """The IR as data: the artifact as a dict (nodes, outputs, updates, ...)."""
        return _json.loads(self._c.to_json())

    def freeze(self, names=None):
        """Turns the named parameters (all when None) into constants."""
        if isinstance(names, str):
            names = [names]
        if names is None:
            return self._derive(self._c.freeze([]))  # the core's empty list means every parameter
        names = list(names)
        return self._derive(self._c.freeze(names)) if names else self

    def bind(self, bindings):
        """A program whose `call` nodes use these host functions:
        {"name": (forward, vjp)}; vjp may be None (forward only). Bindings
        are never written into JSON."""
        p = Program(self._c.bind(bindings), reference=self._reference, source=self._source)
        return p

    # -- artifact ---------------------------------------------------------
    def to_json(self):
        """Artifact version 1 as JSON text."""
        return self._c.to_json()

    def to_c(self, name="tc_program", *, header_file=None):
        """The program as C99 (emit --target c): {"source": ..., "header": ...}.
        `name` prefixes the functions; with `header_file` ("model.h") the
        source includes that header, without it the source stands alone.
        Computes like the CPU evaluator, checks and failing node included;
        compile with -ffp-contract=off (docs/backends.md)."""
        return self._c.to_c(name, header_file or "")

    def to_onnx(self):
        """The program as an ONNX model's bytes (emit --target onnx): inputs,
        outputs and parameters by name over a batch dimension N, plus the
        outputs `failed` and `error_node` (docs/backends.md)."""
        return self._c.to_onnx()

    @classmethod
    def from_json(cls, text):
        """Loads and validates an artifact (str, bytes or an already parsed dict)."""
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8", errors="replace")
        elif isinstance(text, dict):
            text = _json.dumps(text)
        elif not isinstance(text, str):
            raise TypeError(f"from_json() takes the artifact's text, not {type(text).__name__}")
        return cls(_core.Program.from_json(text))

    def to_tensor_module(self, *, errors="raise", threads=1):
        """A torch.nn.Module over this program (imports torch): inputs are
        1-D tensors [B] (one case each), 0-d tensors or numbers; one batched
        forward and one batched reverse pass in core per call. errors="nan"
        masks failing cases; `threads` cores share a batch (0: every core)."""
        from .torch_module import TensorModule
        return TensorModule(self, errors=errors, threads=threads)

    # -- pickling: copy.deepcopy, pickle, torch.save ----------------------
    # The circuit travels as its artifact JSON (_core.Program pickles that
    # way and refuses a program with host bindings). The Python function
    # verify() uses travels only when pickle can find it again by name.
    def __getstate__(self):
        return {"core": self._c, "source": self._source, "warnings": self._warnings,
                "reference": self._reference if _importable(self._reference) else None}

    def __setstate__(self, state):
        self._c = state["core"]
        self._reference = state.get("reference")
        self._source = state.get("source")
        self._warnings = tuple(state.get("warnings", ()))
        self._bound = None
        self._stepper = None

    def __deepcopy__(self, memo):
        import copy as _copy
        return Program(_copy.deepcopy(self._c, memo), reference=self._reference, source=self._source,
                       warnings=self._warnings)

    # -- training ---------------------------------------------------------
    def fit(self, cases, targets, *, optimizer="sgd", lr=0.01, steps=100, threads=1, params=None):
        """Trains the differentiable parameters as `tensorcode fit` does (the
        same core function, so the same bits): full-batch steps on the mean
        over cases of the summed squared errors. `cases`: a list of dicts or
        a dict of columns holding input values and target fields; `targets`:
        {output: field} (or output names, each its own field). Returns
        {"program": trained Program, "steps", "optimizer", "initial_loss",
        "final_loss", "parameters"}."""
        if isinstance(targets, str):
            targets = {targets: targets}
        elif not isinstance(targets, dict):
            targets = {t: t for t in targets}
        pairs = [(str(o), str(f)) for o, f in targets.items()]
        core, report = _core.fit(self._c, cases, pairs, str(optimizer), float(lr), int(steps), int(threads), params)
        report["program"] = self._derive(core)
        return report

    # -- text forms -------------------------------------------------------
    def ir(self):
        """The IR listing: the text of `tensorcode info --ir`."""
        return self._c.ir()

    def dot(self):
        """The Graphviz circuit: the text of `tensorcode info --dot`."""
        return self._c.dot()

    # -- rich display (display.py) -----------------------------------------
    def show(self, inputs, *, semantics=None, output=None, params=None, gradients=True, bindings=None):
        """One case through the circuit, to look at: an Inspection holding
        every node's value and, for `output` (default "result", else the
        first), every node's adjoint and the gradients in `semantics` (default:
        the program's), or the error that stopped them and the node it names
        (a hybrid gradient that needs an unchosen branch marks that select).
        A notebook draws it as the circuit with values and gradients on the
        nodes; str() is one line of text."""
        from .display import Inspection
        core = self._with(bindings)
        _check_input_names(inputs, core)
        found = Inspection(self, core, inputs, semantics=semantics, output=output, params=params,
                           gradients=gradients)
        node = None if found.error is None else found.error["node"]
        if found.error is not None and (node is None or self._c.info()["nodes"] <= node or
                                        self.graph()["nodes"][node]["op"] == "input"):
            # Not a failure inside the circuit (a value outside its domain): the caller's, raised as run() raises it.
            self.run(inputs, params=params, bindings=bindings)
        return found

    def _repr_mimebundle_(self, include=None, exclude=None):
        """The circuit by schedule layer as SVG (Graphviz), grouped when large."""
        from .display import _program_bundle
        return _program_bundle(self)

    # -- description ------------------------------------------------------
    @property
    def inputs(self):
        """{name: Domain} in node order."""
        return {name: dom for name, dom, _ in self._c.info()["inputs"]}

    @property
    def parameters(self):
        """{name: stored value}."""
        return dict(self._c.info()["parameters"])

    @property
    def state(self):
        """{name: initial value} of the state nodes."""
        return {name: value for name, value, _ in self._c.info()["state"]}

    @property
    def outputs(self):
        """Output names in order."""
        return list(self._c.info()["outputs"])

    @property
    def semantics(self):
        return self._c.info()["semantics"]

    @property
    def dtype(self):
        return self._c.info()["dtype"]

    @property
    def warnings(self):
        """Compiler warnings (e.g. unused assignments)."""
        return self._warnings

    def __eq__(self, other):
        if not isinstance(other, Program):
            return NotImplemented
        return self._c.same_circuit(other._c)

    __hash__ = None

    def __repr__(self):
        info = self._c.info()
        return (f"<tensorcode Program: {info['nodes']} nodes, inputs {[i[0] for i in info['inputs']]}, "
                f"outputs {info['outputs']}, {info['semantics']}>")


def _unknown_name(given, valid):
    """The first name of `given` (a dict, or a list of dicts: the first that
    has one) that is not in `valid`, or None."""
    if isinstance(given, dict):
        for k in given:
            if isinstance(k, str) and k not in valid:
                return k
    elif isinstance(given, (list, tuple)):
        for case in given[:1000]:  # a wrong name is usually in every case; do not scan millions
            if isinstance(case, dict):
                found = _unknown_name(case, valid)
                if found is not None:
                    return found
    return None


def _name_hint(name, valid):
    import difflib
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    listed = ", ".join(f"'{v}'" for v in valid[:50]) + (", ..." if len(valid) > 50 else "")
    text = f"'{name}' is not an input of the program"
    if close:
        text += f": did you mean '{close[0]}'?"
    return text + (f" (its inputs: {listed})" if valid else " (it has no inputs)")


def _input_names(core):
    return [name for name, _, _ in core.info()["inputs"]]


def _add_name_hint(error, given, core):
    """Appends to an EvaluationError, when the caller gave an input name the
    program does not have, the valid names and the closest one: `unknown
    input 'tmp'; 'tmp' is not an input of the program: did you mean 'temp'?
    (its inputs: 'temp', 'x')`. Only on the error path: a run pays nothing."""
    try:
        valid = _input_names(core)
        name = _unknown_name(given, set(valid))
    except Exception:  # noqa: BLE001 - the original error matters more than the hint
        return
    if name is None:
        return
    hint = "; " + _name_hint(name, valid)
    error.args = (str(error) + hint,) + tuple(error.args[1:])
    if isinstance(getattr(error, "message", None), str):
        error.message += hint


def _check_input_names(inputs, core):
    """Program.show(): an unknown input name is the caller's error, as in run()."""
    if not isinstance(inputs, dict):
        raise TypeError(f"inputs must be a dict of input name to number, not {type(inputs).__name__}")
    valid = _input_names(core)
    name = _unknown_name(inputs, set(valid))
    if name is not None:
        raise EvaluationError(f"unknown input '{name}'; " + _name_hint(name, valid))
    missing = [v for v in valid if v not in inputs]
    if missing:
        raise EvaluationError(f"missing input '{missing[0]}'")


def _importable(fn):
    """True when pickle can store `fn` by name and find the same object again."""
    if fn is None:
        return False
    import sys
    target = sys.modules.get(getattr(fn, "__module__", None) or "")
    for part in getattr(fn, "__qualname__", "<locals>").split("."):
        target = getattr(target, part, None)
    return target is fn


def _located_error(message, filename, line, column):
    """A CompileError at FILE:LINE:COLUMN, worded like the core's."""
    e = CompileError(f"{filename}:{line}:{column}: error: {message}")
    e.message, e.line, e.column = message, line, column
    return e


def _first_use(source, names):
    """(line, column), 1-based, of the first use of one of `names` in `source`."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in names]
    if not uses:
        return None
    first = min(uses, key=lambda n: (n.lineno, n.col_offset))
    return first.lineno, first.col_offset + 1


def _first_default(source, name):
    """(line, column), 1-based, of the first default value of function `name`."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            values = [d for d in node.args.defaults + node.args.kw_defaults if d is not None]
            if values:
                first = min(values, key=lambda d: (d.lineno, d.col_offset))
                return first.lineno, first.col_offset + 1
    return None


def _thread_count(threads):
    """`threads=` as the core takes it: 0 (every core) or a positive count."""
    count = _integer(threads)
    if count is None or count < 0:
        raise ValueError(f"threads must be 0 (every core) or a positive number of threads, not {threads!r}")
    return count


def _integer(value):
    """An int from an int-like value (numpy integers too); None for bools and the rest."""
    import operator
    if isinstance(value, bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def _positive_count(value, name):
    """A count of at least 1 (verify's max_cases and samples; the CLI refuses 0 too)."""
    count = _integer(value)
    if count is None or count < 1:
        raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return count


def _case_json(index, case):
    """One supplied verification case as a JSON line; a non-finite or
    non-numeric value is named here instead of failing later as bad JSON."""
    import math
    import numbers
    if not isinstance(case, dict):
        raise TypeError(f"case {index} must be a dict of input values, not {type(case).__name__}")
    clean = {}
    for name, value in case.items():
        if isinstance(value, bool) or (isinstance(value, int) and type(value) is int):
            clean[name] = value
            continue
        if not isinstance(value, numbers.Real):
            raise TypeError(f"case {index}: input '{name}' must be a number, not {type(value).__name__}")
        value = int(value) if isinstance(value, numbers.Integral) else float(value)  # numpy scalars too
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"case {index}: input '{name}' is {value!r}: input values must be finite")
        clean[name] = value
    return _json.dumps(clean)


def _function_from_source(source, preferred=None):
    """The function defined by reference source text, run in this interpreter."""
    subset = _subset_builtins()
    namespace = dict(subset)
    try:
        exec(_compile_builtin(source, "<reference>", "exec"), namespace)  # noqa: S102 - the user's own reference
    except SyntaxError as e:
        raise VerificationError(f"the reference source does not compile: {e}") from e
    except Exception as e:  # noqa: BLE001 - loading the reference failed
        raise VerificationError(f"the reference source raised while loading: {type(e).__name__}: {e}") from e
    import inspect as _inspect
    functions = {k: v for k, v in namespace.items()
                 if _inspect.isfunction(v) and k not in subset and v.__module__ != __name__}
    if preferred in functions:
        return functions[preferred]
    if len(functions) == 1:
        return next(iter(functions.values()))
    raise VerificationError(f"the reference source defines {len(functions)} functions: pass a callable instead")


def _subset_builtins():
    """{name: function} for the subset's builtins (relu, sigmoid): the names
    are the op table's python column, the definitions the contract's, taken
    from the one copy core's CPython reference runs (python_driver.py), so
    verify() here and `tensorcode verify` judge by the same functions."""
    global _SUBSET_BUILTINS
    if _SUBSET_BUILTINS is None:
        source = _core.python_driver_source()
        if not source:
            raise VerificationError("this tensorcode was built without the python reference (TC_ENABLE_PYTHON=OFF), "
                                    "which defines the subset's builtins")
        namespace = {"__name__": "tensorcode_subset_builtins"}  # not __main__: the driver's loop stays off
        exec(_compile_builtin(source, "<tensorcode python_driver.py>", "exec"), namespace)  # noqa: S102 - ours
        _SUBSET_BUILTINS = {name: namespace[name] for name in _core.python_builtins() if name in namespace}
    return _SUBSET_BUILTINS


_SUBSET_BUILTINS = None


def _with_builtins_of_the_subset(fn):
    """The function verify() calls: `fn` itself, or, when it uses relu or
    sigmoid without defining them, a copy that sees the contract's definitions
    (the CLI's CPython reference defines them the same way)."""
    import builtins
    wanted = _subset_builtins()
    missing = {k: v for k, v in wanted.items()
               if k in fn.__code__.co_names and k not in fn.__globals__ and not hasattr(builtins, k)}
    if not missing:
        return fn
    import types
    copy = types.FunctionType(fn.__code__, {**fn.__globals__, **missing}, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    copy.__qualname__ = fn.__qualname__
    return copy


_compile_builtin = compile


def compile(fn_or_source, inputs=None, *, dtype=None, semantics="exact", surrogate="sigmoid",  # noqa: A001
            temperature=1.0, max_iterations=None, max_nodes=None, function=None):
    """Compiles a Python function (its source via inspect.getsource; verify()
    then checks against the function itself) or source text to a Program.
    `inputs` maps every parameter to a domain; a parameter left out takes its
    domain from a `# tensorcode: input NAME=DOMAIN` comment in the source.
    dtype, max_iterations and max_nodes left as None come from a
    `# tensorcode: compile dtype=... max-iterations=N max-nodes=N` comment in
    the source (the IDE's Compile Options), else float64, 1024 and 100000; a
    value given here wins. For a function only its own lines are the source."""
    import inspect as _inspect  # here, not at import: it is slow to import
    import textwrap as _textwrap
    if inputs is not None and not isinstance(inputs, dict):
        raise TypeError(f"inputs must be a dict of parameter name to domain, not {type(inputs).__name__}")
    domains = []
    for name, dom in (inputs or {}).items():
        domains.append((name, _domain(dom, name)))
    reference = None
    indent = 0
    if isinstance(fn_or_source, str):
        source, filename, fname = fn_or_source, "<source>", function or ""
    elif _inspect.isfunction(fn_or_source):
        fn = fn_or_source
        reference = fn
        fname = fn.__name__
        if fname == "<lambda>":
            raise CompileError("a lambda cannot be compiled: write a def function")
        try:
            lines, first = _inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise CompileError(f"the source of function {fname} cannot be inspected ({e}): "
                               "pass the source text or use Builder") from e
        raw = "".join(lines)
        source = _textwrap.dedent(raw)
        indent = len(lines[0]) - len(lines[0].lstrip()) if source != raw else 0
        if fn.__closure__:
            free = fn.__code__.co_freevars
            message = (f"function {fname} is a closure (it uses {', '.join(free)} of an enclosing function): "
                       "pass the values as inputs or write them as constants in the function")
            filename = _inspect.getsourcefile(fn) or "<function>"
            at = _first_use(source, set(free))
            if at is None:  # cannot happen for source that compiled; keep the message
                raise CompileError(message)
            raise _located_error(message, filename, first + at[0] - 1, at[1] + indent)
        if fn.__defaults__ or fn.__kwdefaults__:
            message = (f"function {fname} has default argument values: every parameter must be an input "
                       "(remove '= ...' and give its domain in inputs=)")
            at = _first_default(source, fname)
            if at is None:
                raise CompileError(message)
            filename = _inspect.getsourcefile(fn) or "<function>"
            raise _located_error(message, filename, first + at[0] - 1, at[1] + indent)
        if source.lstrip().startswith("@"):
            raise CompileError(f"function {fname} is decorated: decorators are rejected")
        filename = _inspect.getsourcefile(fn) or "<function>"
        reference = _with_builtins_of_the_subset(fn)
        # Keep the file's line numbers in errors and node locations.
        source = "\n" * (max(first, 1) - 1) + source
    elif callable(fn_or_source):
        raise CompileError(f"only plain Python functions can be compiled, not {type(fn_or_source).__name__}")
    else:
        raise TypeError(f"compile() takes a function or source text, not {type(fn_or_source).__name__}")
    try:
        options = {"filename": filename, "function": fname, "semantics": semantics,
                   "surrogate": surrogate, "temperature": float(temperature)}
        # Only the settings given: the others are the source's compile directive's (core decides).
        if dtype is not None:
            options["dtype"] = dtype
        # As given: core checks them (int() took "100", 1.5 and True).
        if max_iterations is not None:
            options["max_iterations"] = max_iterations
        if max_nodes is not None:
            options["max_nodes"] = max_nodes
        core, warnings = _core.compile_source(source, domains, options)
    except CompileError as e:
        if indent and e.column is not None:
            e.column += indent
            e.args = (f"{filename}:{e.line}:{e.column}: error: {e.message}",)
        raise
    return Program(core, reference=reference, source=source, warnings=warnings)


class Builder(_core.Builder):
    """Builds a program node by node. Values are symbolic: + - * / // % and
    unary minus and the ordered comparisons build nodes; use op("eq", x, y)
    for equality and select(c, yes, no) instead of if (a symbolic value used
    as a Python bool raises TypeError)."""

    def __init__(self, semantics="exact", surrogate="sigmoid", temperature=1.0, dtype="float64"):
        super().__init__(semantics, surrogate, float(temperature), dtype)

    def input(self, name, domain=None, *, differentiable=None):
        """An input (default domain float64(); floating inputs are differentiable)."""
        return super().input(name, float64() if domain is None else _domain(domain, name), differentiable)

    def state(self, name, initial, domain):
        """A state node with its initial value; set its next value with update()."""
        return super().state(name, initial, _domain(domain, name))

    def include(self, program, inputs, prefix="region"):
        """Copies `program` in with its inputs wired from `inputs`; its
        parameters and state become PREFIX.NAME and its nodes keep its
        semantics. Returns its outputs by name."""
        return super().include(_core_of(program), inputs, prefix)

    def scan(self, body, init, sequence):
        """carry = body(carry, item) for each item (expanded)."""
        return super().scan(body, init, list(sequence))

    def freeze(self, names=None):
        """Parameters to turn into constants at build() (all when None)."""
        if isinstance(names, str):
            names = [names]
        if names is None:
            super().freeze(None)
        elif list(names):
            super().freeze(list(names))

    def build(self, outputs):
        """Finishes the program: a value (output "result"), a list/tuple
        (outputs "result[0]"...) or a dict of named outputs."""
        return Program(super().build(outputs))


def _builtin_method(spelled, op_name):
    def method(self, *args):
        return self.op(op_name, *args)
    method.__name__ = method.__qualname__ = spelled
    method.__doc__ = f"The subset's builtin {spelled}(...): op({op_name!r}, ...)."
    return method


# One method per builtin of the Python subset (relu, sigmoid, ...), read from
# the op table (ops.def's python column) rather than written per op.
for _spelled, _op_name in _core.python_builtin_ops():
    if not hasattr(Builder, _spelled):
        setattr(Builder, _spelled, _builtin_method(_spelled, _op_name))
del _spelled, _op_name


class Runtime:
    """Event state (contract section 3): each dispatch sees the old state and
    commits every update together, only when all checks passed."""

    __slots__ = ("_c",)

    def __init__(self, program, max_steps=1_000_000, *, bindings=None):
        if isinstance(program, _core.Runtime):
            self._c = program
            return
        core = _core_of(program)
        if max_steps is None or int(max_steps) < 0:
            raise ValueError("max_steps must be a non-negative integer")
        self._c = _core.Runtime(core, int(max_steps), bindings)

    def dispatch(self, inputs):
        """Runs and commits one event: its outputs."""
        try:
            return self._c.dispatch(inputs)
        except EvaluationError as e:
            _add_name_hint(e, inputs, self._c.program())
            raise

    def step(self, inputs, state=None):
        """Pure: (outputs, next_state) against `state` (default: the committed one)."""
        try:
            return self._c.step(inputs, state)
        except EvaluationError as e:
            _add_name_hint(e, inputs, self._c.program())
            raise

    def replay(self, events):
        """Dispatches events in order: one {"step", "outputs", "state"} per
        event. Stops at the first failure with EvaluationError (.event is its
        index, .records what committed before it). The list displays as a
        timeline in a notebook (display.ReplayLog)."""
        from .display import ReplayLog
        try:
            return ReplayLog(self._c.replay(events))
        except EvaluationError as e:
            if isinstance(getattr(e, "records", None), list):
                e.records = ReplayLog(e.records)
            raise

    def snapshot(self):
        """The snapshot (contract section 3) as a dict: program, state, steps, max_steps."""
        return _json.loads(self._c.snapshot())

    @staticmethod
    def restore(snapshot, *, bindings=None):
        """Resumes from snapshot() (a dict, or its JSON text), keeping the consumed steps."""
        if isinstance(snapshot, (bytes, bytearray)):
            snapshot = bytes(snapshot).decode("utf-8", errors="replace")
        elif isinstance(snapshot, dict):
            snapshot = _json.dumps(snapshot)
        elif not isinstance(snapshot, str):
            raise TypeError(f"restore() takes a snapshot dict or its JSON text, not {type(snapshot).__name__}")
        return Runtime(_core.Runtime.restore(snapshot, bindings))

    @property
    def state(self):
        return self._c.state

    @property
    def steps(self):
        return self._c.steps

    @property
    def max_steps(self):
        return self._c.max_steps

    @property
    def program(self):
        return Program(self._c.program())


def analyze(program, *, params=None, free_parameters=False):
    """Interval of every node and warnings about operations that may fail
    (a diagnostic, not a proof): {"nodes", "outputs", "warnings"}."""
    return _core_of(program).analyze(params, bool(free_parameters))


def verified_replacement(original, candidate, *, max_cases=100000, atol=0, rtol=0, prove=False, timeout=60.0):
    """Returns `candidate` when it agrees with `original` on every value of
    the original's finite domains (frozen parameters, no state or calls, same
    inputs and outputs); raises VerificationError with the first disagreement
    otherwise. The original's Python function is the reference when it has one.

    prove=True proves the agreement over the whole domain instead of
    enumerating it (see prove(); within `timeout` seconds), so float and
    large int32 domains are accepted: the candidate is returned when proved
    equivalent to the original's circuit, and VerificationError is raised
    with the counterexample, or with why no proof was found; its `report` is
    then the ProofReport."""
    if prove:
        from .proof import ProofReport
        try:
            _core.proved_replacement(_core_of(original), _core_of(candidate), float(timeout), float(atol),
                                     float(rtol), "cvc5")
        except VerificationError as e:
            if isinstance(getattr(e, "report", None), dict):
                e.report = ProofReport(e.report)
            raise
        return candidate
    _core.verified_replacement(_core_of(original), _core_of(candidate), original._reference, int(max_cases),
                               float(atol), float(rtol))
    return candidate


def prove(a, b=None, *, timeout=60.0, atol=0, rtol=0):
    """A proof over the whole input domain (`tensorcode prove A [B]`,
    docs/verification.md "Proofs"). With `b`: for every input both programs
    fail, or neither does and every output agrees within |a - b| <= atol +
    rtol*|b| ("equivalent"), or an input where they do not ("different").
    Without: `a` cannot fail on any input ("cannot-fail"), or an input where
    it does ("can-fail"). "unknown" when no solver answered within `timeout`
    seconds (each), or Ctrl-C stopped it (KeyboardInterrupt is raised then).
    Z3 decides, cvc5 (when installed) gives a second opinion, and every
    counterexample is reproduced by the evaluator before it is reported.

    Returns a ProofReport: the dict `tensorcode prove --json` prints, with
    .verdict, .proved, .counterexample (.inputs is what Program.run takes),
    .solvers and .seconds. Raises VerificationError for a program the solvers
    cannot take (host calls, state, sigmoid) or differing signatures."""
    from .proof import ProofReport
    doc = _core.prove(_core_of(a), None if b is None else _core_of(b), float(timeout), float(atol), float(rtol),
                      "cvc5")
    return ProofReport(doc)


@_dataclasses.dataclass(frozen=True)
class Diff:
    """What diff(a, b) found (the tensorcode.diff document of docs/diff.md,
    as attributes). str() gives the text `tensorcode diff` prints."""

    same: bool
    same_structure: bool
    same_values: "bool | None"
    a: "dict[str, int]"
    b: "dict[str, int]"
    summary: "dict[str, int]"
    program: "list[dict[str, _Any]]"
    inputs: "list[dict[str, _Any]]"
    parameters: "list[dict[str, _Any]]"
    state: "list[dict[str, _Any]]"
    nodes: "dict[str, list[dict[str, _Any]]]"
    outputs: "list[dict[str, _Any]]"
    text: str = _dataclasses.field(repr=False)

    def to_dict(self):
        """The tensorcode.diff document, as `tensorcode diff --json` prints it."""
        doc = {"format": "tensorcode.diff", "version": 1}
        for f in _dataclasses.fields(self):
            if f.name != "text":
                doc[f.name] = getattr(self, f.name)
        return _json.loads(_json.dumps(doc))  # a copy the caller may change

    def __str__(self):
        return self.text

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Added, removed and changed in colour, and b's circuit with them marked."""
        from .display import _diff_html, _guarded
        programs = getattr(self, "_programs", None)
        labels = getattr(self, "_labels", ("a", "b"))
        return _guarded(lambda: {"text/plain": self.text, "text/html": _diff_html(self, programs, labels)},
                        self.text)


def diff(a, b, *, cases=None, max_examples=10, labels=("a", "b"), limit=20):
    """Compares two programs (`tensorcode diff A B`): pairs their nodes by
    source position, loop iteration and structure, and reports nodes added,
    removed and changed, inputs, parameters and state that differ, and each
    output's circuit. With `cases` (a list of {input: value} dicts giving
    every input of either program) it also runs both and reports the outputs
    whose values differ. `labels` name the two sides in str(result); `limit`
    cuts its lists."""
    if not isinstance(labels, (tuple, list)) or len(labels) != 2 or not all(isinstance(x, str) for x in labels):
        raise TypeError("labels must be a pair of str, e.g. ('before', 'after')")
    examples = _integer(max_examples)
    if examples is None or examples < 0:
        raise ValueError(f"max_examples must be a non-negative integer, not {max_examples!r}")
    doc, text = _core.diff(_core_of(a), _core_of(b), cases, examples, labels[0], labels[1],
                           _positive_count(limit, "limit"))
    fields = {f.name for f in _dataclasses.fields(Diff)} - {"text"}
    result = Diff(text=text, **{k: v for k, v in doc.items() if k in fields})
    # For the picture (not fields: to_dict() and == see only the document).
    object.__setattr__(result, "_programs", (a, b))
    object.__setattr__(result, "_labels", tuple(labels))
    return result
