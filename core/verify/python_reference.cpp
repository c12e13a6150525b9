// The embedded CPython reference (see python_reference.h). Compiled only
// when TC_ENABLE_PYTHON is on (CMake excludes python_*.cpp otherwise).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>

#include "verify/python_reference.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

namespace tc {

namespace {

// The driver runs inside the interpreter: one Python-level loop per block of
// cases, so the per-case cost is a dict and a call, not a C++ round trip.
// relu and sigmoid are contract section 4 word for word (sigmoid uses
// math.exp, as the C++ kernel uses exp from the same libm).
constexpr const char* kDriver = R"PY(
import builtins, math

class ReferenceStop(BaseException):
    pass

class Sink:
    def write(self, text):
        return len(text)
    def flush(self):
        pass
    def isatty(self):
        return False

def relu(x):
    return x if x > 0 else 0

def sigmoid(x):
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)

FunctionType = type(relu)

def load(source, filename):
    g = {'__name__': '__tensorcode_reference__', '__builtins__': builtins,
         'relu': relu, 'sigmoid': sigmoid}
    exec(compile(source, filename, 'exec', dont_inherit=True), g)
    return g

def functions(g, filename):
    return [k for k, v in g.items()
            if type(v) is FunctionType and v.__code__.co_filename == filename]

def describe(e):
    try:
        text = str(e)
    except BaseException:
        text = ''
    name = type(e).__name__
    return name + ': ' + text if text else name

def load_error(e, filename):
    if isinstance(e, SyntaxError):
        msg = e.msg if isinstance(e.msg, str) else describe(e)
        return ('SyntaxError: ' + msg, e.lineno or 0, e.offset or 0)
    line = 0
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return (describe(e), line, 1 if line else 0)

def signature_problem(fn, inputs):
    c = fn.__code__
    npos, nkw = c.co_argcount, c.co_kwonlyargcount
    names = list(c.co_varnames[:npos + nkw])
    posonly = names[:c.co_posonlyargcount]
    ndefaults = len(fn.__defaults__ or ())
    kwdefaults = fn.__kwdefaults__ or {}
    required = names[:npos - ndefaults] + [n for n in names[npos:] if n not in kwdefaults]
    takes_any = bool(c.co_flags & 0x08)
    refused = [n for n in inputs if n in posonly or (n not in names and not takes_any)]
    missing = [n for n in required if n not in inputs]
    if not refused and not missing:
        return None
    return ('takes parameters (' + ', '.join(names) + ") but the program's inputs are (" +
            ', '.join(inputs) + ')')

def run(fn, names, columns, n, tick):
    out = []
    ap = out.append
    rows = zip(*columns) if names else ((),) * n
    i = 0
    for row in rows:
        tick(i)
        i += 1
        try:
            r = fn(**dict(zip(names, row)))
        except ReferenceStop:
            raise
        except BaseException as e:
            ap((False, describe(e)))
        else:
            ap((True, r))
    return out
)PY";

/// Owned reference to a Python object (requires the GIL for every operation).
class Ref {
 public:
  Ref() = default;
  explicit Ref(PyObject* o) : o_(o) {}  // steals
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  Ref(Ref&& r) noexcept : o_(r.o_) { r.o_ = nullptr; }
  Ref& operator=(Ref&& r) noexcept {
    std::swap(o_, r.o_);
    return *this;
  }
  ~Ref() { Py_XDECREF(o_); }
  static Ref borrow(PyObject* o) {
    Py_XINCREF(o);
    return Ref(o);
  }
  PyObject* get() const { return o_; }
  explicit operator bool() const { return o_ != nullptr; }

 private:
  PyObject* o_ = nullptr;
};

class Gil {
 public:
  Gil() : s_(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(s_); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  PyGILState_STATE s_;
};

/// The driver's functions, created once with the interpreter and never freed
/// (the interpreter lives until the process exits).
struct Driver {
  PyObject* module = nullptr;  // dict
  PyObject* load = nullptr;
  PyObject* functions = nullptr;
  PyObject* describe = nullptr;
  PyObject* load_error = nullptr;
  PyObject* signature_problem = nullptr;
  PyObject* run = nullptr;
  PyObject* stop_type = nullptr;
  PyObject* sink = nullptr;
  PyObject* tick = nullptr;
};

Driver g_driver;
std::string g_start_error;  // empty when the interpreter runs

// ---- budgets ---------------------------------------------------------------
//
// The common path runs untraced (tracing makes CPython's loop 2-3x slower).
// A watchdog thread watches the case in progress; when one runs past its
// time, it takes the GIL (a running loop hands it over within the switch
// interval) and installs a C trace function on the evaluating thread that
// raises ReferenceStop at every later line or call event, so no `except`
// in user code can keep the loop alive.

/// The running batch's budget, shared by the evaluating thread and its watchdog.
struct Budget {
  double max_seconds = 0;
  Progress* progress = nullptr;              ///< polled by tick, on the evaluating thread
  PyThreadState* target = nullptr;           ///< the evaluating thread's state
  std::atomic<long> current_case{-1};        ///< -1 while loading the module
  std::atomic<std::int64_t> case_start_ns{0};
  std::atomic<bool> stopped{false};
  std::string why;                           ///< written before `stopped` is set
  long stopped_case = -1;                    ///< the case that ran too long; written before `stopped`
  bool finished = false;                     ///< the run returned; guarded by the GIL
  std::mutex mutex;
  std::condition_variable wake;
  bool done = false;                         ///< guarded by `mutex`: the watchdog may leave
};
thread_local Budget* t_budget = nullptr;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

/// Raises ReferenceStop on every line and call event once installed.
int trace(PyObject*, PyFrameObject*, int what, PyObject*) {
  Budget* b = t_budget;
  if (!b || (what != PyTrace_LINE && what != PyTrace_CALL) || !b->stopped.load(std::memory_order_acquire)) return 0;
  PyErr_SetString(g_driver.stop_type, b->why.c_str());
  return -1;
}

void stop_from_here(Budget& b, std::string why) {
  b.why = std::move(why);
  b.stopped.store(true, std::memory_order_release);
  PyErr_SetString(g_driver.stop_type, b.why.c_str());
}

/// tick(i): the driver calls it before case i; restarts the case's clock and
/// polls cancellation.
PyObject* tick(PyObject*, PyObject* arg) {
  Budget* b = t_budget;
  if (!b) Py_RETURN_NONE;
  if (b->stopped.load(std::memory_order_acquire)) {
    PyErr_SetString(g_driver.stop_type, b->why.c_str());
    return nullptr;
  }
  b->current_case.store(PyLong_AsLong(arg), std::memory_order_relaxed);
  b->case_start_ns.store(now_ns(), std::memory_order_relaxed);
  if (b->progress && b->progress->cancelled()) {
    stop_from_here(*b, "cancelled");
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyMethodDef g_tick_def = {"tick", tick, METH_O, "per-case budget reset"};

void watchdog(Budget* b) {
  const auto limit = static_cast<std::int64_t>(b->max_seconds * 1e9);
  const auto poll = std::chrono::nanoseconds(std::clamp<std::int64_t>(limit / 4, 1000000, 50000000));
  std::unique_lock<std::mutex> lock(b->mutex);
  while (!b->done) {
    b->wake.wait_for(lock, poll);
    if (b->done) return;
    long before = b->current_case.load(std::memory_order_relaxed);
    std::int64_t start = b->case_start_ns.load(std::memory_order_relaxed);
    if (b->current_case.load(std::memory_order_relaxed) != before) continue;  // a new case just began
    if (now_ns() - start <= limit) continue;
    b->stopped_case = before;
    b->why = "ran longer than " + seconds_text(b->max_seconds) + " s";
    b->stopped.store(true, std::memory_order_release);
    lock.unlock();
    PyGILState_STATE gil = PyGILState_Ensure();
    if (!b->finished) _PyEval_SetTrace(b->target, trace, nullptr);
    PyGILState_Release(gil);
    return;
  }
}

/// Runs `call` under the budget with stdout/stderr sunk and stdin closed.
/// Called with the GIL held.
template <class F>
PyObject* guarded(Budget& budget, F&& call) {
  Ref out = Ref::borrow(PySys_GetObject("stdout"));
  Ref err = Ref::borrow(PySys_GetObject("stderr"));
  Ref in = Ref::borrow(PySys_GetObject("stdin"));
  PySys_SetObject("stdout", g_driver.sink);
  PySys_SetObject("stderr", g_driver.sink);
  PySys_SetObject("stdin", Py_None);
  Budget* previous = t_budget;
  t_budget = &budget;
  budget.target = PyThreadState_Get();
  budget.case_start_ns.store(now_ns());
  std::thread guard(watchdog, &budget);
  PyObject* result = call();
  budget.finished = true;  // under the GIL: the watchdog installs nothing from now on
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);  // keep the run's exception across the clean-up
  {
    std::lock_guard<std::mutex> lock(budget.mutex);
    budget.done = true;
  }
  budget.wake.notify_all();
  Py_BEGIN_ALLOW_THREADS  // the watchdog may be waiting for the GIL
  guard.join();
  Py_END_ALLOW_THREADS
  PyEval_SetTrace(nullptr, nullptr);
  t_budget = previous;
  PySys_SetObject("stdout", out.get() ? out.get() : Py_None);
  PySys_SetObject("stderr", err.get() ? err.get() : Py_None);
  PySys_SetObject("stdin", in.get() ? in.get() : Py_None);
  PyErr_Restore(type, value, tb);
  return result;
}

/// The pending exception as text (clears it).
std::string fetch_error() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  Ref t(type), v(value), b(tb);
  if (!v) return "unknown python error";
  Ref text(PyObject_CallOneArg(g_driver.describe, v.get()));
  if (!text || !PyUnicode_Check(text.get())) {
    PyErr_Clear();
    return "python error";
  }
  return PyUnicode_AsUTF8(text.get());
}

std::string utf8(PyObject* o) {
  const char* s = o && PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : nullptr;
  if (!s) {
    PyErr_Clear();
    return "?";
  }
  return s;
}

PyObject* driver_fn(const char* name) { return PyDict_GetItemString(g_driver.module, name); }

void start_interpreter() {
  if (!Py_IsInitialized()) {
    PyConfig config;
    // Isolated: PYTHONPATH/PYTHONHOME and the user's site are ignored, so a
    // pyenv or virtualenv of the user cannot change what the reference sees;
    // the standard library is the one of the libpython we link (Debian's).
    PyConfig_InitIsolatedConfig(&config);
    config.site_import = 0;
    config.install_signal_handlers = 0;
    config.write_bytecode = 0;
    config.parse_argv = 0;
    config.buffered_stdio = 1;
    PyStatus status = PyConfig_SetString(&config, &config.program_name, L"tensorcode-reference");
    if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
      g_start_error = std::string("cannot start the embedded python: ") +
                      (status.err_msg ? status.err_msg : "unknown error");
      return;
    }
    // Release the GIL so that any thread (the IDE's worker) can take it.
    PyEval_SaveThread();
  }
  Gil gil;
  PyObject* module = PyDict_New();
  PyDict_SetItemString(module, "__builtins__", PyEval_GetBuiltins());
  Ref r(PyRun_String(kDriver, Py_file_input, module, module));
  if (!r) {
    g_start_error = "cannot start the embedded python: the verification driver failed: " + fetch_error();
    return;
  }
  g_driver.module = module;
  g_driver.load = driver_fn("load");
  g_driver.functions = driver_fn("functions");
  g_driver.describe = driver_fn("describe");
  g_driver.load_error = driver_fn("load_error");
  g_driver.signature_problem = driver_fn("signature_problem");
  g_driver.run = driver_fn("run");
  g_driver.stop_type = driver_fn("ReferenceStop");
  g_driver.sink = PyObject_CallNoArgs(driver_fn("Sink"));
  g_driver.tick = PyCFunction_New(&g_tick_def, nullptr);
  if (!g_driver.sink || !g_driver.tick) g_start_error = "cannot start the embedded python: " + fetch_error();
}

bool ensure_interpreter(std::string* why) {
  static std::once_flag once;
  std::call_once(once, start_interpreter);
  if (!g_start_error.empty()) {
    if (why) *why = g_start_error;
    return false;
  }
  return true;
}

/// An error in the reference module: located when the line is known,
/// otherwise the message names the file (a diagnostic without a location is
/// rendered as "error: MESSAGE").
Diagnostic located(std::string message, const std::string& file, int line, int column) {
  if (line <= 0 && !file.empty()) message = file + ": " + message;
  Diagnostic d = make_error(std::move(message));
  if (line > 0) d.loc = SourceLoc{line, column > 0 ? column : 1};
  d.file = file;
  return d;
}

/// One returned value as a double; false (with `why`) for anything but bool/int/float.
bool to_double(PyObject* o, double& v, std::string& why) {
  if (PyBool_Check(o)) {
    v = o == Py_True ? 1.0 : 0.0;
  } else if (PyLong_Check(o)) {
    v = PyLong_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      why = "OverflowError: the returned int is too large for a float";
      return false;
    }
  } else if (PyFloat_Check(o)) {
    v = PyFloat_AS_DOUBLE(o);
  } else {
    why = std::string("the reference returned ") + Py_TYPE(o)->tp_name + ", not a number";
    return false;
  }
  return true;
}

Outcome convert(PyObject* r) {
  Outcome o;
  std::string why;
  double v;
  if (PyTuple_Check(r) || PyList_Check(r)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(r);
    PyObject** items = PySequence_Fast_ITEMS(r);
    for (Py_ssize_t i = 0; i < n; ++i) {
      if (!to_double(items[i], v, why)) return Outcome::failure(why + " (item " + std::to_string(i) + ")");
      o.outputs.emplace_back("result[" + std::to_string(i) + "]", v);
    }
    return o;
  }
  if (PyDict_Check(r)) {
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(r, &pos, &key, &value)) {
      if (!PyUnicode_Check(key)) return Outcome::failure("the reference returned a dict with a non-string key");
      if (!to_double(value, v, why)) return Outcome::failure(why + " (key " + utf8(key) + ")");
      o.outputs.emplace_back(utf8(key), v);
    }
    return o;
  }
  if (!to_double(r, v, why)) return Outcome::failure(why);
  o.outputs.emplace_back("result", v);
  return o;
}

class PythonReference final : public Reference {
 public:
  PythonReference(const PythonReferenceOptions& options, Ref globals, Ref function, std::string name, int line)
      : options_(options), globals_(std::move(globals)), function_(std::move(function)), name_(std::move(name)),
        line_(line) {}

  ~PythonReference() override {
    Gil gil;
    names_ = Ref();
    function_ = Ref();
    globals_ = Ref();
  }

  std::string describe() const override { return "python function " + name_ + " in " + options_.filename; }

  Status bind(const std::vector<CaseInput>& inputs) override {
    Gil gil;
    integral_.clear();
    Ref names(PyList_New(static_cast<Py_ssize_t>(inputs.size())));
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      PyList_SET_ITEM(names.get(), static_cast<Py_ssize_t>(k), PyUnicode_FromString(inputs[k].name.c_str()));
      integral_.push_back(inputs[k].domain.is_integral());
    }
    Ref problem(PyObject_CallFunctionObjArgs(g_driver.signature_problem, function_.get(), names.get(), nullptr));
    if (!problem) return make_error("cannot inspect " + describe() + ": " + fetch_error());
    if (problem.get() != Py_None)
      return located("reference function " + name_ + " " + utf8(problem.get()), options_.filename, line_, 1);
    names_ = std::move(names);
    return ok_status();
  }

  Status evaluate(const std::vector<std::vector<double>>& columns, std::size_t count, std::vector<Outcome>& out,
                  Progress* progress) override {
    Gil gil;
    if (!names_) return make_error("internal: python reference used before bind");
    Ref cols(PyList_New(static_cast<Py_ssize_t>(columns.size())));
    for (std::size_t k = 0; k < columns.size(); ++k) {
      PyObject* col = PyList_New(static_cast<Py_ssize_t>(count));
      for (std::size_t c = 0; c < count; ++c) {
        double v = columns[k][c];
        PyObject* item = integral_[k] ? PyLong_FromDouble(v) : PyFloat_FromDouble(v);
        PyList_SET_ITEM(col, static_cast<Py_ssize_t>(c), item);
      }
      PyList_SET_ITEM(cols.get(), static_cast<Py_ssize_t>(k), col);
    }
    Ref n(PyLong_FromSize_t(count));
    Budget budget;
    budget.max_seconds = options_.max_seconds_per_case;
    budget.progress = progress;
    Ref results(guarded(budget, [&] {
      return PyObject_CallFunctionObjArgs(g_driver.run, function_.get(), names_.get(), cols.get(), n.get(),
                                          g_driver.tick, nullptr);
    }));
    if (!results) {
      if (!budget.stopped.load()) return make_error(describe() + ": the verification driver failed: " + fetch_error());
      PyErr_Clear();
      if (budget.why == "cancelled") return make_error("cancelled");
      std::string inputs;
      const long current = budget.why == "cancelled" ? -1 : budget.stopped_case;
      if (current >= 0) {
        for (std::size_t k = 0; k < columns.size(); ++k) {
          PyObject* name = PyList_GET_ITEM(names_.get(), static_cast<Py_ssize_t>(k));
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.17g", columns[k][static_cast<std::size_t>(current)]);
          inputs += (inputs.empty() ? "" : ", ") + utf8(name) + "=" + buf;
        }
      }
      return located("reference function " + name_ + " " + budget.why + " on the case " + inputs +
                         " (does it loop forever?)",
                     options_.filename, line_, 1);
    }
    Py_ssize_t size = PyList_GET_SIZE(results.get());
    for (Py_ssize_t i = 0; i < size; ++i) {
      PyObject* pair = PyList_GET_ITEM(results.get(), i);
      PyObject* ok = PyTuple_GET_ITEM(pair, 0);
      PyObject* value = PyTuple_GET_ITEM(pair, 1);
      if (ok == Py_True)
        out.push_back(convert(value));
      else
        out.push_back(Outcome::failure(utf8(value)));
    }
    return ok_status();
  }

 private:
  PythonReferenceOptions options_;
  Ref globals_;
  Ref function_;
  std::string name_;
  int line_ = 0;
  Ref names_;
  std::vector<bool> integral_;
};

std::string joined(PyObject* list) {
  std::string s;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i)
    s += (i ? ", " : "") + utf8(PyList_GET_ITEM(list, i));
  return s;
}

bool contains(PyObject* list, const std::string& name) {
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list); ++i)
    if (utf8(PyList_GET_ITEM(list, i)) == name) return true;
  return false;
}

}  // namespace

// The interpreter is never finalised: it lives until the process exits
// (finalising CPython while another thread may still use it is unsafe, and
// the OS reclaims everything anyway). In sanitizer builds LeakSanitizer then
// reports CPython's own allocations at exit; this hook, read by LSan when it
// is linked in and ignored otherwise, marks allocations made inside
// libpython as expected.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpython3\n"; }
// ...and keeps the statistics of used suppressions off stderr, whose
// contents the command line promises (one error line at most).
extern "C" const char* __lsan_default_options() { return "print_suppressions=0"; }

bool python_reference_available(std::string* why) { return ensure_interpreter(why); }

Result<std::unique_ptr<Reference>> make_python_reference(const PythonReferenceOptions& options) {
  std::string why;
  if (!ensure_interpreter(&why)) return make_error(why);
  Gil gil;
  Ref source(PyUnicode_DecodeUTF8(options.source.data(), static_cast<Py_ssize_t>(options.source.size()), "strict"));
  if (!source) {
    PyErr_Clear();
    return located("the reference source is not valid utf-8", options.filename, 0, 0);
  }
  Ref filename(PyUnicode_FromString(options.filename.c_str()));
  Budget budget;
  budget.max_seconds = options.max_seconds_per_case;
  Ref globals(guarded(budget, [&] {
    return PyObject_CallFunctionObjArgs(g_driver.load, source.get(), filename.get(), nullptr);
  }));
  if (!globals) {
    if (budget.stopped.load()) {
      PyErr_Clear();
      return located("loading the reference " + budget.why + " (does it loop forever at module level?)",
                     options.filename, 0, 0);
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb) PyException_SetTraceback(value, tb);
    Ref t(type), v(value), b(tb);
    Ref info(PyObject_CallFunctionObjArgs(g_driver.load_error, v.get(), filename.get(), nullptr));
    if (!info) return make_error("loading the reference failed: " + fetch_error());
    std::string message = utf8(PyTuple_GET_ITEM(info.get(), 0));
    int line = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(info.get(), 1)));
    int column = static_cast<int>(PyLong_AsLong(PyTuple_GET_ITEM(info.get(), 2)));
    return located("the reference raised " + message + " while loading", options.filename, line, column);
  }
  Ref names(PyObject_CallFunctionObjArgs(g_driver.functions, globals.get(), filename.get(), nullptr));
  if (!names) return make_error("cannot list the reference's functions: " + fetch_error());
  std::string chosen = options.function;
  if (chosen.empty()) {
    Py_ssize_t n = PyList_GET_SIZE(names.get());
    if (n == 1) {
      chosen = utf8(PyList_GET_ITEM(names.get(), 0));
    } else if (!options.preferred_function.empty() && contains(names.get(), options.preferred_function)) {
      chosen = options.preferred_function;
    } else if (n == 0) {
      return located("the reference defines no function", options.filename, 0, 0);
    } else {
      return located("the reference defines several functions (" + joined(names.get()) + "): name the one to use",
                     options.filename, 0, 0);
    }
  }
  PyObject* fn = PyDict_GetItemString(globals.get(), chosen.c_str());  // borrowed
  if (!fn || !PyFunction_Check(fn)) {
    return located("the reference defines no function '" + chosen + "' (its functions: " + joined(names.get()) + ")",
                   options.filename, 0, 0);
  }
  int line = 0;
  Ref code(PyObject_GetAttrString(fn, "__code__"));
  if (code) {
    Ref first(PyObject_GetAttrString(code.get(), "co_firstlineno"));
    if (first) line = static_cast<int>(PyLong_AsLong(first.get()));
  }
  PyErr_Clear();
  return std::unique_ptr<Reference>(
      new PythonReference(options, std::move(globals), Ref::borrow(fn), chosen, line));
}

}  // namespace tc
