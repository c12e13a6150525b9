#pragma once
// Shared pieces of the extension: raising core diagnostics as the package's
// exception classes, converting Python numbers and dicts, JSON to Python.
//
// Every entry point runs with the GIL held and never releases it: bindings
// and verification references call back into Python from inside core.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/diagnostic.h"
#include "eval/evaluator.h"

namespace tcpy {

namespace py = pybind11;

enum class ErrorKind { Compile, Evaluation, Artifact, Verification };

/// The package's exception classes (tensorcode.program.errors), registered
/// once by the Python layer.
void register_error_classes(py::handle compile, py::handle evaluation, py::handle artifact,
                            py::handle verification);

/// Raises the class of `kind` with the diagnostic's message and its
/// .line/.column/.node attributes. A Python exception raised by a binding or a
/// reference during the failed call becomes its __cause__ (KeyboardInterrupt
/// and other non-Exception errors are re-raised as they are).
[[noreturn]] void raise_diagnostic(ErrorKind kind, const tc::Diagnostic& d);
/// Same, with only a message.
[[noreturn]] void raise_error(ErrorKind kind, const std::string& message);

/// Remembers the Python exception now set (and clears it) so that the error
/// core reports for the same call can chain it; returns "Type: message".
std::string stash_python_error();
/// Drops a stashed exception (before a new call).
void clear_stashed_error();
/// True when a stashed exception must stop work at once (KeyboardInterrupt...).
bool stashed_error_is_fatal();

/// A str from UTF-8, replacing invalid bytes (messages may quote user text).
py::str to_str(std::string_view s);

/// A Python number (int, float, bool, anything with __float__ or __index__)
/// as a double; TypeError naming `what` otherwise.
double to_double(PyObject* o, const char* what, std::string_view name);

/// Fills `out` from a mapping of str to number.
void fill_named(py::handle mapping, std::map<std::string, double, std::less<>>& out, const char* what);

/// JSON (as core writes it) to Python objects.
py::object json_to_py(const nlohmann::ordered_json& j);

/// Python option values (None, bool, int, float, str, dicts of them) as
/// JSON, for core's option layer (options/binding_options.h); any other
/// object becomes its type name as a string-free placeholder ("object"), so
/// core's message names a wrong type instead of this layer inventing words.
nlohmann::json py_to_json(py::handle h);

/// `h` as a T bound by this module, checking that it was initialised: an
/// instance made with T.__new__ and never __init__ has no value, and using
/// it must be a TypeError, not a crash.
template <class T>
T& checked(py::handle h) {
  if (!py::isinstance<T>(h))
    throw py::type_error(std::string("expected a ") + py::detail::get_type_info(typeid(T))->type->tp_name + ", not " +
                         Py_TYPE(h.ptr())->tp_name);
  auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
  auto vh = inst->get_value_and_holder(py::detail::get_type_info(typeid(T)), false);
  if (!vh || !vh.holder_constructed() || !vh.value_ptr())
    throw py::type_error(std::string(Py_TYPE(h.ptr())->tp_name) + " object is not initialised (made by __new__ without __init__)");
  return *static_cast<T*>(vh.value_ptr());
}

/// Host functions bound to `call` nodes, with the Python callables they keep alive.
struct HostBindings {
  tc::Bindings map;
  std::vector<py::object> keep;
};
/// From {"name": (forward, vjp)} / {"name": (forward, None)} / {"name": forward}.
std::shared_ptr<HostBindings> make_bindings(py::handle spec);

}  // namespace tcpy
