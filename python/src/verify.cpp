// verify() and verified_replacement() over core/verify. The reference of a
// program compiled from a Python function is that function, called in this
// interpreter (it is the user's own code, in the user's own process).
#include <cmath>

#include "program.h"
#include "verify/cases.h"
#include "verify/replacement.h"
#include "verify/verify.h"
#include "workbench/workbench.h"

namespace tcpy {
namespace {

/// Progress that stops verification when a reference call was interrupted
/// (Ctrl-C): core then reports "cancelled" and the interruption is re-raised.
class InterruptProgress final : public tc::Progress {
 public:
  void update(std::uint64_t, std::uint64_t, std::string_view) override {}
  [[nodiscard]] bool cancelled() const override { return stashed_error_is_fatal(); }
};

/// A Python callable as the reference: called with keyword arguments (int32
/// and bool inputs as int, floating inputs as float). A number is the output
/// "result", a tuple or list "result[0]"..., a dict names its outputs. Any
/// exception means the case raised.
class CallableReference final : public tc::Reference {
 public:
  explicit CallableReference(py::object fn) : fn_(std::move(fn)) {
    py::object name = py::getattr(fn_, "__qualname__", py::getattr(fn_, "__name__", py::str("reference")));
    description_ = "python function " + py::str(name).cast<std::string>();
  }
  [[nodiscard]] std::string describe() const override { return description_; }
  tc::Status bind(const std::vector<tc::CaseInput>& inputs) override {
    inputs_ = inputs;
    keys_.clear();
    for (const auto& in : inputs_) keys_.push_back(to_str(in.name));
    return tc::ok_status();
  }
  tc::Status evaluate(const std::vector<std::vector<double>>& columns, std::size_t count,
                      std::vector<tc::Outcome>& out, tc::Progress*) override {
    for (std::size_t c = 0; c < count; ++c) {
      if (stashed_error_is_fatal()) return tc::make_error("cancelled");
      out.push_back(call(columns, c));
    }
    return tc::ok_status();
  }

 private:
  tc::Outcome call(const std::vector<std::vector<double>>& columns, std::size_t c) {
    py::dict kwargs;
    for (std::size_t k = 0; k < inputs_.size(); ++k) {
      double v = columns[k][c];
      if (inputs_[k].domain.is_integral())
        kwargs[keys_[k]] = py::reinterpret_steal<py::object>(PyLong_FromDouble(v));
      else
        kwargs[keys_[k]] = py::float_(v);
    }
    PyObject* r = PyObject_Call(fn_.ptr(), py::tuple().ptr(), kwargs.ptr());
    if (!r) {
      if (PyErr_ExceptionMatches(PyExc_Exception)) {
        py::error_already_set e;  // fetches and clears
        return tc::Outcome::failure(std::string(Py_TYPE(e.value().ptr())->tp_name) + ": " +
                                    py::str(e.value()).cast<std::string>());
      }
      stash_python_error();  // KeyboardInterrupt and friends stop verification
      return tc::Outcome::failure("interrupted");
    }
    py::object res = py::reinterpret_steal<py::object>(r);
    tc::Outcome o;
    auto number = [&](py::handle h, const std::string& name) -> bool {
      if (PyUnicode_Check(h.ptr()) || !(PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()) ||
                                        (Py_TYPE(h.ptr())->tp_as_number && Py_TYPE(h.ptr())->tp_as_number->nb_float))) {
        o = tc::Outcome::failure(std::string("TypeError: the reference returned ") + Py_TYPE(h.ptr())->tp_name +
                                 " for '" + name + "'");
        return false;
      }
      double v = PyFloat_AsDouble(h.ptr());
      if (v == -1.0 && PyErr_Occurred()) {
        py::error_already_set e;
        o = tc::Outcome::failure(std::string(Py_TYPE(e.value().ptr())->tp_name) + ": " +
                                 py::str(e.value()).cast<std::string>());
        return false;
      }
      o.outputs.emplace_back(name, v);
      return true;
    };
    if (PyDict_Check(res.ptr())) {
      for (auto [k, v] : py::reinterpret_borrow<py::dict>(res))
        if (!number(v, py::str(k).cast<std::string>())) return o;
    } else if (PyTuple_Check(res.ptr()) || PyList_Check(res.ptr())) {
      std::size_t i = 0;
      for (py::handle v : py::reinterpret_borrow<py::sequence>(res))
        if (!number(v, "result[" + std::to_string(i++) + "]")) return o;
    } else if (!number(res, "result")) {
      return o;
    }
    return o;
  }

  py::object fn_;
  std::string description_;
  std::vector<tc::CaseInput> inputs_;
  std::vector<py::str> keys_;
};

std::unique_ptr<tc::Reference> make_reference(py::handle reference, const tc::Program& program) {
  if (py::isinstance<CoreProgram>(reference)) {
    CoreProgram& ref = core_program(reference);
    tc::EvalOptions eo;
    eo.bindings = ref.binding_map();
    auto r = tc::make_program_reference(ref.program(), eo);
    if (!r) raise_diagnostic(ErrorKind::Verification, r.error());
    return std::move(r.value());
  }
  if (!PyCallable_Check(reference.ptr()))
    throw py::type_error(std::string("reference must be a callable or a Program, not ") +
                         Py_TYPE(reference.ptr())->tp_name);
  (void)program;
  return std::make_unique<CallableReference>(py::reinterpret_borrow<py::object>(reference));
}

// A bad tolerance is a bad argument (ValueError); the rule is core's, which
// verify and verified_replacement apply again for every other caller.
void check_tolerance_argument(const tc::Tolerance& tolerance) {
  if (tc::Status s = tc::check_tolerance(tolerance); !s) throw py::value_error(s.error().message);
}

py::object verify_program(py::handle self, py::handle reference, py::handle cases_jsonl, std::size_t max_cases,
                          double atol, double rtol, std::size_t samples) {
  clear_stashed_error();
  CoreProgram& p = core_program(self);
  check_tolerance_argument({atol, rtol});
  auto ref = make_reference(reference, p.program());
  tc::VerifyOptions o;
  o.max_cases = max_cases;
  o.samples = samples;
  o.tolerance = {atol, rtol};
  // The session's bindings serve the circuit's call nodes.
  // The circuit may use every core, unless a binding calls back into Python:
  // only this thread holds the GIL.
  o.threads = p.program().has_calls() ? 1 : 0;
  InterruptProgress progress;
  o.progress = &progress;
  if (!cases_jsonl.is_none()) {
    auto cs = tc::parse_cases_jsonl(cases_jsonl.cast<std::string>(), tc::program_inputs(p.program()), "<cases>");
    if (!cs) raise_diagnostic(ErrorKind::Verification, cs.error());
    o.cases = std::move(cs.value());
  }
  auto report = tc::workbench::verify(p.session(), *ref, o);
  if (!report) raise_diagnostic(ErrorKind::Verification, report.error());
  return json_to_py(tc::report_to_json(*report));
}

py::object replace(py::handle original, py::handle candidate, py::handle reference, std::size_t max_cases,
                   double atol, double rtol) {
  clear_stashed_error();
  CoreProgram& o = core_program(original);
  CoreProgram& c = core_program(candidate);
  tc::ReplacementOptions options;
  options.max_cases = max_cases;
  options.tolerance = {atol, rtol};
  check_tolerance_argument(options.tolerance);
  std::unique_ptr<tc::Reference> ref;
  if (!reference.is_none()) {
    ref = make_reference(reference, o.program());
    options.original_reference = ref.get();
  }
  InterruptProgress progress;
  options.progress = &progress;
  auto v = tc::workbench::verified_replacement(o.session(), c.session(), options);
  if (!v) raise_diagnostic(ErrorKind::Verification, v.error());
  if (v->accepted) return py::none();
  std::string message = "replacement refused: " + v->reason;
  py::object report = py::none();
  if (v->report) {
    nlohmann::ordered_json j = tc::report_to_json(*v->report);
    if (!j["mismatches"].empty()) message += "; first disagreement: " + j["mismatches"][0].dump();
    report = json_to_py(j);
  }
  try {
    raise_error(ErrorKind::Verification, message);
  } catch (py::error_already_set& e) {
    e.value().attr("report") = report;
    throw;
  }
}

}  // namespace

void bind_verify(py::module_& m) {
  m.def("verify", &verify_program, py::arg("program"), py::arg("reference"), py::arg("cases_jsonl"),
        py::arg("max_cases"), py::arg("atol"), py::arg("rtol"), py::arg("samples"));
  m.def("verified_replacement", &replace, py::arg("original"), py::arg("candidate"), py::arg("reference"),
        py::arg("max_cases"), py::arg("atol"), py::arg("rtol"));
}

}  // namespace tcpy
