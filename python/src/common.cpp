#include "common.h"

#include <cmath>
#include <stdexcept>

namespace tcpy {
namespace {

// Raw references on purpose: these live for the whole process and must not
// be released after the interpreter finalised.
PyObject* g_classes[4] = {nullptr, nullptr, nullptr, nullptr};
PyObject* g_stashed = nullptr;  // exception value raised by a binding / reference

PyObject* class_of(ErrorKind kind) {
  PyObject* c = g_classes[static_cast<int>(kind)];
  if (c) return c;
  switch (kind) {
    case ErrorKind::Compile: return PyExc_ValueError;
    case ErrorKind::Evaluation: return PyExc_ArithmeticError;
    case ErrorKind::Artifact:
    case ErrorKind::Verification: return PyExc_RuntimeError;
  }
  return PyExc_RuntimeError;
}

[[noreturn]] void raise_with(ErrorKind kind, const std::string& text, const tc::Diagnostic* d) {
  PyObject* stashed = g_stashed;
  g_stashed = nullptr;
  py::object cause = stashed ? py::reinterpret_steal<py::object>(stashed) : py::object();
  if (cause && !PyObject_IsInstance(cause.ptr(), PyExc_Exception)) {
    // KeyboardInterrupt, SystemExit: the user's own interruption wins.
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(cause.ptr())), cause.ptr());
    throw py::error_already_set();
  }
  py::handle cls(class_of(kind));
  py::object exc = cls(to_str(text));
  if (d) {
    exc.attr("message") = to_str(d->message);
    if (d->loc && d->loc->valid()) {
      exc.attr("line") = d->loc->line;
      exc.attr("column") = d->loc->column;
    }
    if (d->node) exc.attr("node") = *d->node;
  } else {
    exc.attr("message") = to_str(text);
  }
  if (cause) PyException_SetCause(exc.ptr(), cause.release().ptr());
  PyErr_SetObject(cls.ptr(), exc.ptr());
  throw py::error_already_set();
}

}  // namespace

void register_error_classes(py::handle compile, py::handle evaluation, py::handle artifact, py::handle verification) {
  py::handle all[4] = {compile, evaluation, artifact, verification};
  for (int i = 0; i < 4; ++i) {
    Py_XDECREF(g_classes[i]);
    g_classes[i] = all[i].inc_ref().ptr();
  }
}

void raise_diagnostic(ErrorKind kind, const tc::Diagnostic& d) {
  // Compile errors read like a compiler's (FILE:LINE:COL: error: ...); the
  // evaluator's messages already name the node, its op and its location.
  raise_with(kind, kind == ErrorKind::Compile ? d.format() : d.message, &d);
}

void raise_error(ErrorKind kind, const std::string& message) { raise_with(kind, message, nullptr); }

std::string stash_python_error() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb && value) PyException_SetTraceback(value, tb);
  Py_XDECREF(tb);
  std::string text = type ? reinterpret_cast<PyTypeObject*>(type)->tp_name : "error";
  if (value) {
    PyObject* s = PyObject_Str(value);
    if (s) {
      Py_ssize_t n = 0;
      const char* u = PyUnicode_AsUTF8AndSize(s, &n);
      if (u && n > 0) text += ": " + std::string(u, static_cast<std::size_t>(n));
      Py_DECREF(s);
    }
    PyErr_Clear();
  }
  Py_XDECREF(type);
  // Keep the first one: later failures are usually consequences.
  if (!g_stashed) g_stashed = value;
  else Py_XDECREF(value);
  return text;
}

void clear_stashed_error() {
  Py_XDECREF(g_stashed);
  g_stashed = nullptr;
}

bool stashed_error_is_fatal() { return g_stashed && !PyObject_IsInstance(g_stashed, PyExc_Exception); }

py::str to_str(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

double to_double(PyObject* o, const char* what, std::string_view name) {
  if (PyFloat_CheckExact(o)) return PyFloat_AS_DOUBLE(o);
  if (PyLong_Check(o)) {
    double v = PyLong_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return v;
  }
  PyNumberMethods* nb = Py_TYPE(o)->tp_as_number;
  if (!PyUnicode_Check(o) && nb && (nb->nb_float || nb->nb_index)) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    return v;
  }
  throw py::type_error(std::string(what) + " '" + std::string(name) + "' must be a number, not " +
                       Py_TYPE(o)->tp_name);
}

void fill_named(py::handle mapping, std::map<std::string, double, std::less<>>& out, const char* what) {
  if (!PyDict_Check(mapping.ptr())) {
    // Any mapping with keys() (not a list of pairs, which dict() would also take).
    if (!PyMapping_Check(mapping.ptr()) || !PyObject_HasAttrString(mapping.ptr(), "keys"))
      throw py::type_error(std::string(what) + " values must be a dict of name to number, not " +
                           Py_TYPE(mapping.ptr())->tp_name);
    py::dict copy(py::reinterpret_borrow<py::object>(mapping));
    fill_named(copy, out, what);
    return;
  }
  PyObject *key = nullptr, *value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(mapping.ptr(), &pos, &key, &value)) {
    if (!PyUnicode_Check(key)) throw py::type_error(std::string(what) + " names must be str, not " + Py_TYPE(key)->tp_name);
    Py_ssize_t n = 0;
    const char* k = PyUnicode_AsUTF8AndSize(key, &n);
    if (!k) throw py::error_already_set();
    std::string_view name(k, static_cast<std::size_t>(n));
    out.insert_or_assign(std::string(name), to_double(value, what, name));
  }
}

py::object json_to_py(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return to_str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& e : j) l.append(json_to_py(e));
      return l;
    }
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [k, v] : j.items()) d[to_str(k)] = json_to_py(v);
      return d;
    }
    default: return py::none();
  }
}

nlohmann::json py_to_json(py::handle h) {
  PyObject* o = h.ptr();
  if (o == Py_None) return nullptr;
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        return 1.8446744073709552e19;  // past every count: refused by its range check
      }
      return static_cast<std::uint64_t>(u);
    }
    if (overflow < 0) return -9.2233720368547758e18;
    if (v >= 0) return static_cast<std::uint64_t>(v);
    return static_cast<std::int64_t>(v);
  }
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  // An integer of another type (numpy.int64) as its int; a str, a float or
  // a bool is not one (core refuses them by type, as TypeScript's are).
  if (!PyUnicode_Check(o) && PyIndex_Check(o)) {
    PyObject* i = PyNumber_Index(o);
    if (i) return py_to_json(py::reinterpret_steal<py::object>(i));
    PyErr_Clear();
  }
  if (PyUnicode_Check(o)) return py::cast<std::string>(h);
  if (PyDict_Check(o)) {
    nlohmann::json j = nlohmann::json::object();
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(h)) j[py::cast<std::string>(py::str(k))] = py_to_json(v);
    return j;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    nlohmann::json j = nlohmann::json::array();
    for (py::handle e : py::reinterpret_borrow<py::iterable>(h)) j.push_back(py_to_json(e));
    return j;
  }
  return nlohmann::json::object();  // named "object" in core's messages
}

namespace {

py::object call_python(PyObject* fn, std::span<const double> args) {
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(args.size()));
  if (!tuple) throw std::runtime_error(stash_python_error());
  for (std::size_t i = 0; i < args.size(); ++i)
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), PyFloat_FromDouble(args[i]));
  PyObject* r = PyObject_Call(fn, tuple, nullptr);
  Py_DECREF(tuple);
  if (!r) throw std::runtime_error(stash_python_error());
  return py::reinterpret_steal<py::object>(r);
}

double result_number(const py::object& r, const std::string& what) {
  PyObject* o = r.ptr();
  PyNumberMethods* nb = Py_TYPE(o)->tp_as_number;
  if (PyUnicode_Check(o) || !nb || !(nb->nb_float || nb->nb_index)) {
    PyErr_Format(PyExc_TypeError, "%s returned %s, not a number", what.c_str(), Py_TYPE(o)->tp_name);
    throw std::runtime_error(stash_python_error());
  }
  double v = PyFloat_AsDouble(o);
  if (v == -1.0 && PyErr_Occurred()) throw std::runtime_error(stash_python_error());
  return v;
}

}  // namespace

std::shared_ptr<HostBindings> make_bindings(py::handle spec) {
  auto hb = std::make_shared<HostBindings>();
  if (spec.is_none()) return hb;
  if (!PyDict_Check(spec.ptr()))
    throw py::type_error(std::string("bindings must be a dict of name to (forward, vjp), not ") +
                         Py_TYPE(spec.ptr())->tp_name);
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(spec)) {
    if (!PyUnicode_Check(k.ptr())) throw py::type_error("binding names must be str");
    std::string name = k.cast<std::string>();
    py::object forward, vjp = py::none();
    if (PyTuple_Check(v.ptr()) || PyList_Check(v.ptr())) {
      py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
      if (seq.size() != 2)
        throw py::type_error("binding '" + name + "' must be (forward, vjp) with vjp a callable or None");
      forward = seq[0];
      vjp = seq[1];
    } else {
      forward = py::reinterpret_borrow<py::object>(v);
    }
    if (!PyCallable_Check(forward.ptr())) throw py::type_error("binding '" + name + "': forward is not callable");
    if (!vjp.is_none() && !PyCallable_Check(vjp.ptr()))
      throw py::type_error("binding '" + name + "': vjp must be a callable or None");
    tc::Binding b;
    PyObject* f = forward.ptr();
    b.forward = [f, name](std::span<const double> args) -> double {
      return result_number(call_python(f, args), "binding '" + name + "'");
    };
    if (!vjp.is_none()) {
      PyObject* g = vjp.ptr();
      b.vjp = [g, name](std::span<const double> args, double result) -> std::vector<double> {
        py::tuple targs(args.size());
        for (std::size_t i = 0; i < args.size(); ++i) targs[i] = py::float_(args[i]);
        PyObject* r = PyObject_CallFunctionObjArgs(g, targs.ptr(), py::float_(result).ptr(), nullptr);
        if (!r) throw std::runtime_error(stash_python_error());
        py::object res = py::reinterpret_steal<py::object>(r);
        std::vector<double> d;
        PyObject* it = PyObject_GetIter(res.ptr());
        if (!it) {
          PyErr_Clear();
          PyErr_Format(PyExc_TypeError, "vjp of binding '%s' returned %s, not a sequence of numbers", name.c_str(),
                       Py_TYPE(res.ptr())->tp_name);
          throw std::runtime_error(stash_python_error());
        }
        py::object iter = py::reinterpret_steal<py::object>(it);
        while (PyObject* e = PyIter_Next(it)) {
          py::object item = py::reinterpret_steal<py::object>(e);
          d.push_back(result_number(item, "vjp of binding '" + name + "'"));
        }
        if (PyErr_Occurred()) throw std::runtime_error(stash_python_error());
        return d;
      };
    }
    hb->keep.push_back(forward);
    hb->keep.push_back(vjp);
    hb->map.insert_or_assign(name, std::move(b));
  }
  return hb;
}

}  // namespace tcpy
