// The extension module tensorcode.program._core: domains, compile, and the
// classes bound in the other files. The public API is the Python layer in
// tensorcode/program/__init__.py; this module is its private core.
#include <cmath>

#include <pybind11/operators.h>

#include "frontend/compile.h"
#include "options/binding_options.h"
#include "verify/python_reference.h"
#include "program.h"

namespace tcpy {
namespace {

tc::Domain make_domain(tc::DomainType type, std::optional<double> lo, std::optional<double> hi) {
  tc::Domain d{type, lo, hi};
  if ((lo && !std::isfinite(*lo)) || (hi && !std::isfinite(*hi))) throw py::value_error("domain bounds must be finite");
  // The spelling's parser holds every rule (order, range, integral bounds).
  if (auto checked = tc::parse_domain(d.to_string()); !checked) throw py::value_error(checked.error().message);
  return d;
}

const tc::Domain& domain_of(py::handle h) { return checked<tc::Domain>(h); }

py::object domain_bound(const std::optional<double>& v) {
  return v ? py::object(py::float_(*v)) : py::object(py::none());
}

}  // namespace

void bind_misc(py::module_& m) {
  // Every method reads its Domain through checked(): Domain.__new__(Domain)
  // makes an instance whose value was never constructed (issue 23, defect 12).
  py::class_<tc::Domain> domain(m, "Domain");
  domain.def_property_readonly("type", [](py::handle self) { return std::string(tc::to_string(domain_of(self).type)); })
      .def_property_readonly("min", [](py::handle self) { return domain_bound(domain_of(self).min); })
      .def_property_readonly("max", [](py::handle self) { return domain_bound(domain_of(self).max); })
      .def_property_readonly("lo", [](py::handle self) { return domain_of(self).lo(); })
      .def_property_readonly("hi", [](py::handle self) { return domain_of(self).hi(); })
      .def("check",
           [](py::handle self, double v) -> py::object {
             auto why = domain_of(self).check(v);
             return why ? py::object(to_str(*why)) : py::object(py::none());
           })
      .def("__str__", [](py::handle self) { return domain_of(self).to_string(); })
      .def("__repr__", [](py::handle self) {
        const tc::Domain& d = domain_of(self);
        std::string t = d.type == tc::DomainType::Boolean ? "boolean" : std::string(tc::to_string(d.type));
        if (d.type == tc::DomainType::Boolean || (!d.min && !d.max)) return t + "()";
        // As the domain is written: int32(min=-128, max=127), float64(min=0.5, max=None).
        const bool integral = d.type == tc::DomainType::Int32;
        auto num = [integral](const std::optional<double>& v) {
          if (!v) return std::string("None");
          if (integral && std::nearbyint(*v) == *v) return py::repr(py::int_(static_cast<long long>(*v))).cast<std::string>();
          return py::repr(py::float_(*v)).cast<std::string>();
        };
        return t + "(min=" + num(d.min) + ", max=" + num(d.max) + ")";
      })
      .def("__eq__",
           [](py::handle a, py::handle b) -> py::object {
             if (!py::isinstance<tc::Domain>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(domain_of(a) == domain_of(b));
           })
      .def(py::pickle([](py::handle self) { return domain_of(self).to_string(); },
                      [](const std::string& s) {
                        auto d = tc::parse_domain(s);
                        if (!d) throw py::value_error(d.error().message);
                        return *d;
                      }));
  domain.attr("__hash__") = py::none();  // as before: equality without a hash
  m.def("int32", [](std::optional<double> lo, std::optional<double> hi) {
    return make_domain(tc::DomainType::Int32, lo, hi);
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
  m.def("float32", [](std::optional<double> lo, std::optional<double> hi) {
    return make_domain(tc::DomainType::Float32, lo, hi);
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
  m.def("float64", [](std::optional<double> lo, std::optional<double> hi) {
    return make_domain(tc::DomainType::Float64, lo, hi);
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
  m.def("boolean", [] { return tc::Domain::boolean(); });
  m.def("parse_domain", [](const std::string& s) {
    auto d = tc::parse_domain(s);
    if (!d) throw py::value_error(d.error().message);
    return *d;
  });

  m.def("register_errors", &register_error_classes);

  m.def("compile_source",
        [](std::string_view source, const std::vector<std::pair<std::string, py::handle>>& domains,
           py::dict options) {
          // The option rules and their words are core's (options/binding_options.h),
          // shared with the TypeScript SDK; advice names compile()'s arguments.
          auto request = tc::options::compile_request(py_to_json(options), tc::options::KeySpelling::Snake,
                                                      tc::HintSpelling::Python);
          if (!request) throw py::value_error(request.error().message);
          // The settings given as arguments win over the source's
          // `# tensorcode: compile` line; those not given come from it.
          auto resolved = request->for_source(source);
          if (!resolved) raise_diagnostic(ErrorKind::Compile, resolved.error());
          tc::CompileOptions o = std::move(*resolved);
          for (const auto& [name, d] : domains) o.inputs.emplace_back(name, domain_of(d));
          o.use_input_directives = true;
          auto r = tc::compile_python(source, o);
          if (!r) raise_diagnostic(ErrorKind::Compile, r.error());
          py::list warnings;
          for (const tc::Diagnostic& w : r->warnings) warnings.append(to_str(w.format()));
          return py::make_tuple(std::make_shared<CoreProgram>(std::move(r->program)), warnings);
        });

  // The Python subset's builtins: their names from the op table (ops.def's
  // python column), their definitions from the CPython reference's driver.
  m.def("python_builtins", [] {
    py::list names;
    for (int i = 0; i < tc::kOpCount; ++i) {
      const tc::OpInfo& info = tc::op_info(static_cast<tc::Op>(i));
      if (!info.python.empty() && !info.has(tc::kMathModule)) names.append(to_str(info.python));
    }
    return names;
  });
  // The same builtins with the artifact name of the op each spells, for
  // the Builder's convenience methods (Builder.relu(x) is op("relu", x)),
  // and the math module's functions (Builder.sqrt(x) is op("sqrt", x)).
  m.def("python_builtin_ops", [] {
    py::list pairs;
    for (int i = 0; i < tc::kOpCount; ++i) {
      const tc::OpInfo& info = tc::op_info(static_cast<tc::Op>(i));
      if (!info.python.empty()) pairs.append(py::make_tuple(to_str(info.python), to_str(info.name)));
    }
    return pairs;
  });
  m.def("python_driver_source", [] { return std::string(tc::python_driver_source()); });

  m.def("list_functions", [](std::string_view source, const std::string& filename) {
    auto r = tc::list_functions(source, filename);
    if (!r) raise_diagnostic(ErrorKind::Compile, r.error());
    py::list out;
    for (const auto& f : *r) out.append(py::make_tuple(f.name, f.parameters, f.location.line));
    return out;
  });
}

namespace {

// run(program, inputs, params): Program.run's hot path as a plain CPython
// fast-call function, skipping pybind11's argument dispatch (about half of
// the package's per-call overhead).
PyObject* run_fast(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 3) {
    PyErr_SetString(PyExc_TypeError, "run(program, inputs, params) takes 3 arguments");
    return nullptr;
  }
  try {
    return checked<CoreProgram>(args[0]).run(args[1], args[2]).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyMethodDef kRunFast = {"run", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&run_fast)),
                        METH_FASTCALL, "run(program, inputs, params) -> dict of outputs"};

}  // namespace

void bind_fast_paths(py::module_& m) {
  PyObject* f = PyCFunction_NewEx(&kRunFast, nullptr, m.attr("__name__").ptr());
  if (!f) throw py::error_already_set();
  m.add_object("run", py::reinterpret_steal<py::object>(f));
}

}  // namespace tcpy

namespace tcpy {
// node_view.cpp: node values, node adjoints and dot subsets for the rich display (display.py).
void bind_node_view(py::module_& m);
}  // namespace tcpy

PYBIND11_MODULE(_core, m) {
  m.doc() = "tensorcode core (private): use tensorcode.program";
  tcpy::bind_misc(m);
  tcpy::bind_program(m);
  tcpy::bind_batch(m);
  tcpy::bind_builder(m);
  tcpy::bind_runtime(m);
  tcpy::bind_verify(m);
  tcpy::bind_fit(m);
  tcpy::bind_diff(m);
  tcpy::bind_prove(m);
  tcpy::bind_node_view(m);
  tcpy::bind_fast_paths(m);
}
