// tensorcode.program.Program's core side: run, run_batch, gradients and the
// torch bridge's forward/backward, plus the passes and the artifact.
#include "program.h"

#include <pybind11/numpy.h>

#include <cmath>
#include <limits>

#include "codegen/c_emitter.h"
#include "workbench/export.h"
#include "ir/artifact.h"
#include "ir/printer.h"
#include "options/binding_options.h"

namespace tcpy {
namespace {

/// Tapes reuse their buffers, so a binding that differentiates the same
/// program while it is being differentiated is refused instead of
/// overwriting the running tape.
class TapeGuard {
 public:
  explicit TapeGuard(tc::ProgramSession& session) {
    if (session.differentiating())
      raise_error(ErrorKind::Evaluation,
                  "this program is already being differentiated (a binding called back into it)");
    running_.emplace(session);
  }

 private:
  std::optional<tc::ProgramSession::Running> running_;
};

/// The session's share of the bindings (they stay owned by HostBindings).
std::shared_ptr<const tc::Bindings> session_bindings(const std::shared_ptr<HostBindings>& b) {
  return b ? std::shared_ptr<const tc::Bindings>(b, &b->map) : nullptr;
}

}  // namespace

CoreProgram::CoreProgram(tc::Program program, std::shared_ptr<HostBindings> bindings)
    : bindings_(std::move(bindings)), session_(std::move(program), session_bindings(bindings_)) {
  for (const tc::Node& n : session_.program().nodes)
    if (n.op == tc::Op::Input) fast_env_.inputs.emplace(n.name, 0.0);
  for (const auto& [name, _] : session_.program().outputs) {
    py::str key = to_str(name);
    PyObject* k = key.release().ptr();
    PyUnicode_InternInPlace(&k);
    out_keys_.push_back(py::reinterpret_steal<py::object>(k));
  }
}

CoreProgram& core_program(py::handle o) { return checked<CoreProgram>(o); }

tc::Evaluator& CoreProgram::evaluator(tc::EvalPlan plan) {
  auto e = session_.evaluator(std::nullopt, plan);
  if (!e) raise_diagnostic(ErrorKind::Evaluation, e.error());
  return **e;
}

py::dict CoreProgram::plan_status() {
  auto status = session_.plan_status();
  if (!status) raise_diagnostic(ErrorKind::Evaluation, status.error());
  const tc::PlanStatus& st = *status;
  py::dict d;
  d["summary"] = st.summary;
  d["compiled"] = st.compiled;
  d["compiling"] = st.compiling;
  d["reason"] = st.reason;
  d["isa"] = st.isa;
  d["cache_hit"] = st.cache_hit;
  d["compile_seconds"] = st.compile_seconds;
  d["path"] = st.path;
  d["compiled_cases"] = st.compiled_cases;
  d["handed_back"] = st.handed_back;
  return d;
}

namespace {

/// plan= of run and run_batch: core's option table reads it.
tc::EvalPlan plan_named(py::handle plan) {
  if (plan.is_none()) return tc::EvalPlan::Auto;
  auto chosen = tc::options::plan(py_to_json(plan));
  if (!chosen) throw py::value_error(chosen.error().message);
  return *chosen;
}

}  // namespace

tc::Env CoreProgram::env_from(py::handle inputs, py::handle params) const {
  tc::Env env;
  fill_named(inputs, env.inputs, "input");
  if (!params.is_none()) fill_named(params, env.params, "parameter");
  return env;
}

py::dict CoreProgram::run(py::handle inputs, py::handle params, tc::EvalPlan plan) {
  clear_stashed_error();
  tc::Evaluator& ev = evaluator(plan);
  PyObject* d = inputs.ptr();
  std::optional<tc::Result<tc::CaseResult>> r;
  // Fast path: a plain dict naming exactly the inputs and no parameter
  // overrides reuses one Env (no allocation per call).
  if (params.is_none() && PyDict_Check(d) &&
      static_cast<std::size_t>(PyDict_GET_SIZE(d)) == fast_env_.inputs.size()) {
    bool all_known = true;
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &key, &value)) {
      if (!PyUnicode_Check(key)) {
        all_known = false;
        break;
      }
      Py_ssize_t n = 0;
      const char* k = PyUnicode_AsUTF8AndSize(key, &n);
      if (!k) throw py::error_already_set();
      std::string_view name(k, static_cast<std::size_t>(n));
      auto it = fast_env_.inputs.find(name);
      // Only plain floats and ints: converting anything else may run user
      // code that calls back into this program while fast_env_ is half set.
      if (it == fast_env_.inputs.end() || !(PyFloat_CheckExact(value) || PyLong_CheckExact(value))) {
        all_known = false;
        break;
      }
      it->second = to_double(value, "input", name);
    }
    if (all_known) r.emplace(ev.run(fast_env_));
  }
  if (!r) r.emplace(ev.run(env_from(inputs, params)));
  if (!r->ok()) raise_diagnostic(ErrorKind::Evaluation, r->error());
  const std::vector<double>& outs = r->value().outputs;
  PyObject* result = PyDict_New();
  if (!result) throw py::error_already_set();
  py::dict out = py::reinterpret_steal<py::dict>(result);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    PyObject* v = PyFloat_FromDouble(outs[i]);
    if (!v || PyDict_SetItem(result, out_keys_[i].ptr(), v) < 0) {
      Py_XDECREF(v);
      throw py::error_already_set();
    }
    Py_DECREF(v);
  }
  return out;
}

void CoreProgram::raise_case_error(const tc::Diagnostic& d, std::size_t case_index) const {
  tc::Diagnostic copy = d;
  copy.message = "case " + std::to_string(case_index) + ": " + d.message;
  try {
    raise_diagnostic(ErrorKind::Evaluation, copy);
  } catch (py::error_already_set& e) {
    e.value().attr("case") = case_index;
    throw;
  }
}

py::object CoreProgram::run_batch(py::handle cases, py::handle params, const std::string& errors, unsigned threads,
                                  tc::EvalPlan plan) {
  clear_stashed_error();
  // Bindings call back into Python, which only the thread holding the GIL may do.
  if (program().has_calls() && threads != 1)
    throw py::value_error("a program with call nodes runs its batch on one thread (its bindings need the GIL)");
  if (errors != "raise" && errors != "nan") throw py::value_error("errors must be 'raise' or 'nan'");
  tc::Evaluator& ev = evaluator(plan);
  tc::Env fixed;
  if (!params.is_none()) fill_named(params, fixed.params, "parameter");
  const std::vector<tc::NodeId>& ids = ev.input_ids();
  std::vector<std::string> names;
  for (tc::NodeId id : ids) names.push_back(program().nodes[static_cast<std::size_t>(id)].name);

  const bool as_columns = PyDict_Check(cases.ptr());
  std::size_t count = 0;
  std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>> arrays;
  std::vector<std::vector<double>> owned;
  std::vector<std::span<const double>> columns;

  if (as_columns) {
    py::dict cols = py::reinterpret_borrow<py::dict>(cases);
    bool names_match = cols.size() == names.size();
    for (const std::string& n : names) names_match = names_match && cols.contains(n);
    if (!names_match) {
      // Let the evaluator word the missing / unknown input.
      tc::Env probe;
      for (auto [k, _] : cols)
        if (PyUnicode_Check(k.ptr())) probe.inputs.emplace(k.cast<std::string>(), 0.0);
      auto r = ev.run(probe);
      if (!r) raise_diagnostic(ErrorKind::Evaluation, r.error());
      throw py::key_error("the columns must name exactly the program's inputs");
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
      // Numbers only, as run() takes: a forced cast would read "1e3" and
      // b"2" as numbers and drop the imaginary part of a complex column.
      py::array natural = py::array::ensure(cols[py::str(names[k])]);
      const char kind = natural ? natural.dtype().kind() : 'O';
      if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f')
        throw py::type_error("column '" + names[k] + "' must hold numbers (bool, int or float), not " +
                             (natural ? py::str(natural.dtype()).cast<std::string>() : std::string("that object")));
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(natural);
      if (!a || a.ndim() != 1) throw py::type_error("column '" + names[k] + "' must be a 1-d sequence of numbers");
      if (k == 0) count = static_cast<std::size_t>(a.shape(0));
      if (static_cast<std::size_t>(a.shape(0)) != count)
        throw py::value_error("column '" + names[k] + "' has " + std::to_string(a.shape(0)) + " values, column '" +
                              names[0] + "' has " + std::to_string(count));
      arrays.push_back(std::move(a));
    }
    for (auto& a : arrays) columns.emplace_back(a.data(), count);
  } else {
    if (!PyList_Check(cases.ptr()) && !PyTuple_Check(cases.ptr()))
      throw py::type_error(std::string("cases must be a list of dicts or a dict of columns, not ") +
                           Py_TYPE(cases.ptr())->tp_name);
    py::sequence seq = py::reinterpret_borrow<py::sequence>(cases);
    count = seq.size();
    owned.assign(names.size(), std::vector<double>(count));
    std::vector<py::str> keys;
    for (const std::string& n : names) keys.push_back(to_str(n));
    for (std::size_t c = 0; c < count; ++c) {
      py::object item = seq[c];
      PyObject* d = item.ptr();
      bool ok = PyDict_Check(d) && static_cast<std::size_t>(PyDict_GET_SIZE(d)) == names.size();
      for (std::size_t k = 0; ok && k < names.size(); ++k) {
        PyObject* v = PyDict_GetItemWithError(d, keys[k].ptr());
        if (!v) {
          if (PyErr_Occurred()) throw py::error_already_set();
          ok = false;
          break;
        }
        owned[k][c] = to_double(v, "input", names[k]);
      }
      if (!ok) {
        if (!PyDict_Check(d)) throw py::type_error("case " + std::to_string(c) + " is not a dict");
        auto r = ev.run(env_from(item, py::none()));
        if (!r) raise_case_error(r.error(), c);
        throw py::key_error("case " + std::to_string(c) + " must name exactly the program's inputs");
      }
    }
    for (auto& col : owned) columns.emplace_back(col.data(), count);
  }

  tc::BatchResult out;
  tc::Status status = tc::ok_status();
  if (!program().has_calls()) {
    // No binding can call back into Python: let other threads run meanwhile.
    py::gil_scoped_release release;
    status = ev.run_batch(columns, count, fixed, out, threads);
  } else {
    // Bindings must see exactly the calls run() makes: one case at a time
    // through the checked walk (an exact select calls only its chosen
    // branch, a failing case is called once), stopping at the first failure
    // under errors="raise", and Ctrl-C is honoured between cases (issue 23,
    // defects 10 and 11; the batched kernels evaluated every branch of every
    // case and retried failing ones).
    out.count = count;
    out.outputs.assign(out_keys_.size(), std::vector<double>(count, 0.0));
    out.failed.assign(count, 0);
    tc::Env env = fixed;
    for (const std::string& n : names) env.inputs[n] = 0.0;
    std::vector<double*> slots;
    for (const std::string& n : names) slots.push_back(&env.inputs.find(n)->second);
    for (std::size_t c = 0; c < count; ++c) {
      for (std::size_t k = 0; k < slots.size(); ++k) *slots[k] = columns[k][c];
      clear_stashed_error();  // a failure chains the exception of its own case only
      auto r = ev.run(env);
      if (stashed_error_is_fatal()) raise_error(ErrorKind::Evaluation, "interrupted");
      if (r) {
        for (std::size_t o = 0; o < out_keys_.size(); ++o) out.outputs[o][c] = r->outputs[o];
      } else {
        if (errors == "raise") raise_case_error(r.error(), c);
        out.failed[c] = 1;
        out.errors.emplace_back(c, r.error());
      }
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
  }
  if (!status) raise_diagnostic(ErrorKind::Evaluation, status.error());
  // A KeyboardInterrupt in a binding is re-raised even when errors="nan".
  if (stashed_error_is_fatal()) raise_error(ErrorKind::Evaluation, "interrupted");
  if (errors == "raise" && !out.errors.empty()) raise_case_error(out.errors[0].second, out.errors[0].first);
  const double nan = std::numeric_limits<double>::quiet_NaN();

  if (as_columns) {
    py::dict result;
    for (std::size_t o = 0; o < out_keys_.size(); ++o) {
      // The evaluator's column becomes the array's buffer (no copy); failed
      // cases read NaN.
      auto* column = new std::vector<double>(std::move(out.outputs[o]));
      column->resize(count);
      py::capsule owner(column, [](void* v) { delete static_cast<std::vector<double>*>(v); });
      if (!out.errors.empty())
        for (const auto& [c, _] : out.errors) (*column)[c] = nan;
      result[out_keys_[o]] = py::array_t<double>(static_cast<py::ssize_t>(count), column->data(), owner);
    }
    return result;
  }
  py::list result(count);
  for (std::size_t c = 0; c < count; ++c) {
    py::dict d;
    const bool failed = !out.failed.empty() && out.failed[c];
    for (std::size_t o = 0; o < out_keys_.size(); ++o) d[out_keys_[o]] = py::float_(failed ? nan : out.outputs[o][c]);
    result[c] = std::move(d);
  }
  return result;
}

py::dict CoreProgram::gradients(py::handle inputs, const std::string& output, py::handle params) {
  clear_stashed_error();
  TapeGuard guard(session_);
  auto tape = session_.tape(output);
  if (!tape) raise_diagnostic(ErrorKind::Evaluation, tape.error());
  auto r = (*tape)->run(env_from(inputs, params));
  if (!r) raise_diagnostic(ErrorKind::Evaluation, r.error());
  py::dict out;
  for (const auto& [name, g] : r->gradients) out[to_str(name)] = g;
  return out;
}

py::tuple CoreProgram::forward_backward(py::handle inputs, py::handle params, py::handle seeds) {
  clear_stashed_error();
  TapeGuard guard(session_);
  auto all = session_.all_outputs_tape();
  if (!all) raise_diagnostic(ErrorKind::Evaluation, all.error());
  tc::GradientTape& tape = **all;
  tc::Env env = env_from(inputs, params);
  std::vector<double> outputs(program().outputs.size());
  if (seeds.is_none()) {
    if (tc::Status s = tape.forward(env, outputs); !s) raise_diagnostic(ErrorKind::Evaluation, s.error());
    return py::make_tuple(py::cast(outputs), py::none());
  }
  std::vector<double> seed_values;
  for (py::handle s : py::reinterpret_borrow<py::iterable>(seeds)) seed_values.push_back(to_double(s.ptr(), "seed", "output"));
  if (seed_values.size() != outputs.size())
    throw py::value_error("need one seed per output (" + std::to_string(outputs.size()) + ")");
  std::vector<double> grads(tape.leaves().size());
  if (tc::Status s = tape.backward(env, seed_values, outputs, grads); !s)
    raise_diagnostic(ErrorKind::Evaluation, s.error());
  py::dict gin, gparam;
  for (std::size_t i = 0; i < grads.size(); ++i) {
    const tc::GradLeaf& leaf = tape.leaves()[i];
    (leaf.op == tc::Op::Input ? gin : gparam)[to_str(leaf.name)] = grads[i];
  }
  return py::make_tuple(py::cast(outputs), py::make_tuple(gin, gparam));
}

namespace {

std::string printed(const tc::Program& p, bool dot) {
  auto sched = tc::schedule(p);
  if (!sched) raise_diagnostic(ErrorKind::Compile, sched.error());
  return dot ? tc::to_dot(p, sched->layer_of) : tc::print_ir(p, sched->layer_of);
}

py::object end_or_none(double v) { return std::isinf(v) ? py::object(py::none()) : py::object(py::float_(v)); }

py::dict program_info(const tc::Program& p) {
  py::list inputs, params, states, calls, outputs;
  for (const tc::Node& n : p.nodes) {
    switch (n.op) {
      case tc::Op::Input: inputs.append(py::make_tuple(n.name, *n.domain, n.differentiable)); break;
      case tc::Op::Parameter: params.append(py::make_tuple(n.name, n.value)); break;
      case tc::Op::State: states.append(py::make_tuple(n.name, n.value, *n.domain)); break;
      case tc::Op::Call: calls.append(n.name); break;
      default: break;
    }
  }
  for (const auto& [name, _] : p.outputs) outputs.append(name);
  py::dict d;
  d["inputs"] = inputs;
  d["parameters"] = params;
  d["state"] = states;
  d["calls"] = calls;
  d["outputs"] = outputs;
  d["semantics"] = std::string(tc::to_string(p.semantics));
  d["dtype"] = std::string(tc::to_string(p.dtype));
  d["surrogate"] = std::string(tc::to_string(p.surrogate));
  d["temperature"] = p.temperature;
  d["nodes"] = p.nodes.size();
  return d;
}

}  // namespace

void bind_program(py::module_& m) {
  py::class_<CoreProgram, std::shared_ptr<CoreProgram>>(m, "Program")
      .def_static("from_json",
                  [](std::string_view text) {
                    auto p = tc::load_artifact(text);
                    if (!p) raise_diagnostic(ErrorKind::Artifact, p.error());
                    return std::make_shared<CoreProgram>(std::move(p.value()));
                  })
      .def("to_json", [](py::handle self_) {
             CoreProgram& self = core_program(self_); return tc::save_artifact(self.program()); })
      .def("to_c",
           [](py::handle self_, const std::string& name, const std::string& header_file) {
             tc::codegen::CExportOptions o;
             o.name = name;
             o.header_file = header_file;
             auto r = tc::codegen::emit_c(core_program(self_).program(), o);
             if (!r) raise_diagnostic(ErrorKind::Compile, r.error());
             py::dict d;
             d["source"] = r->source;
             d["header"] = r->header;
             return d;
           })
      .def("to_onnx",
           [](py::handle self_) {
             auto r = tc::workbench::emit(core_program(self_).session(), "onnx");
             if (!r) raise_diagnostic(ErrorKind::Compile, r.error());
             return py::bytes(r->bytes);
           })
      .def("info", [](py::handle self_) {
             CoreProgram& self = core_program(self_); return program_info(self.program()); })
      .def("run", [](py::handle self, py::handle inputs, py::handle params, py::handle plan) {
             return core_program(self).run(inputs, params, plan_named(plan));
           }, py::arg("inputs"), py::arg("params") = py::none(), py::arg("plan") = py::none())
      .def("run_batch", [](py::handle self, py::handle cases, py::handle params, const std::string& errors,
                           unsigned threads, py::handle plan) {
             return core_program(self).run_batch(cases, params, errors, threads, plan_named(plan));
           }, py::arg("cases"), py::arg("params") = py::none(), py::arg("errors") = "raise", py::arg("threads") = 1,
           py::arg("plan") = py::none())
      .def("plan_status", [](py::handle self) { return core_program(self).plan_status(); })
      .def("gradients", [](py::handle self, py::handle inputs, const std::string& output, py::handle params) {
             return core_program(self).gradients(inputs, output, params);
           }, py::arg("inputs"), py::arg("output") = "result", py::arg("params") = py::none())
      .def("forward_backward", [](py::handle self, py::handle inputs, py::handle params, py::handle seeds) {
             return core_program(self).forward_backward(inputs, params, seeds);
           }, py::arg("inputs"), py::arg("params"), py::arg("seeds"))
      .def("prepare", [](py::handle self_) {
             CoreProgram& self = core_program(self_); self.evaluator(); })
      .def("bind",
           [](py::handle self_, py::handle spec) {
             CoreProgram& self = core_program(self_);
             return std::make_shared<CoreProgram>(self.program(), make_bindings(spec));
           })
      .def("has_bindings", [](py::handle self_) {
             CoreProgram& self = core_program(self_); return self.bindings() != nullptr; })
      .def("freeze",
           [](py::handle self_, std::vector<std::string> names) {
             CoreProgram& self = core_program(self_);
             auto p = tc::freeze(self.program(), names);
             if (!p) raise_diagnostic(ErrorKind::Compile, p.error());
             return std::make_shared<CoreProgram>(std::move(p.value()), self.bindings());
           })
      .def("with_parameters",
           [](py::handle self_, py::handle values) {
             CoreProgram& self = core_program(self_);
             std::map<std::string, double, std::less<>> v;
             fill_named(values, v, "parameter");
             tc::Program p = self.program();
             for (tc::Node& n : p.nodes)
               if (n.op == tc::Op::Parameter) {
                 auto it = v.find(n.name);
                 if (it == v.end()) continue;
                 if (!std::isfinite(it->second))
                   throw py::value_error("parameter '" + n.name + "' must be finite");
                 n.value = it->second;
                 v.erase(it);
               }
             if (!v.empty()) throw py::key_error("the program has no parameter '" + v.begin()->first + "'");
             return std::make_shared<CoreProgram>(std::move(p), self.bindings());
           })
      .def("optimize",
           [](py::handle self_) {
             CoreProgram& self = core_program(self_);
             auto r = self.session().optimize();
             if (!r) raise_diagnostic(ErrorKind::Compile, r.error());
             py::list passes;
             for (const auto& [name, n] : r->stats.after_pass) passes.append(py::make_tuple(name, n));
             py::dict stats;
             stats["nodes_before"] = r->stats.nodes_before;
             stats["nodes_after"] = r->stats.nodes_after;
             stats["passes"] = passes;
             return py::make_tuple(std::make_shared<CoreProgram>(std::move(r->program), self.bindings()), stats);
           })
      .def("schedule",
           [](py::handle self_) {
             CoreProgram& self = core_program(self_);
             auto s = self.session().schedule();
             if (!s) raise_diagnostic(ErrorKind::Compile, s.error());
             return s->layers;
           })
      .def("analyze",
           [](py::handle self_, py::handle params, bool free_parameters) {
             CoreProgram& self = core_program(self_);
             tc::AnalyzeOptions options;
             if (!params.is_none()) fill_named(params, options.params, "parameter");
             options.free_parameters = free_parameters;
             const tc::Program& p = self.program();
             auto a = self.session().analyze(options);
             if (!a) raise_diagnostic(ErrorKind::Compile, a.error());
             py::list nodes, warnings;
             for (const tc::Node& n : p.nodes) {
               const tc::Interval& v = a->intervals[static_cast<std::size_t>(n.id)];
               py::dict j;
               j["id"] = n.id;
               j["op"] = std::string(tc::op_name(n.op));
               j["interval"] = py::make_tuple(end_or_none(v.lo), end_or_none(v.hi));
               // The source location (None for built or located-nowhere nodes).
               const bool located = n.location && n.location->valid();
               j["line"] = located ? py::object(py::int_(n.location->line)) : py::object(py::none());
               j["column"] = located ? py::object(py::int_(n.location->column)) : py::object(py::none());
               nodes.append(j);
             }
             py::dict outputs;
             for (const auto& [name, id] : p.outputs) {
               const tc::Interval& v = a->intervals[static_cast<std::size_t>(id)];
               outputs[to_str(name)] = py::make_tuple(end_or_none(v.lo), end_or_none(v.hi));
             }
             for (const tc::AnalysisWarning& w : a->warnings) {
               py::dict j;
               j["node"] = w.node;
               j["message"] = w.message;
               warnings.append(j);
             }
             py::dict out;
             out["nodes"] = nodes;
             out["outputs"] = outputs;
             out["warnings"] = warnings;
             return out;
           },
           py::arg("params") = py::none(), py::arg("free_parameters") = false)
      .def("same_circuit", [](py::handle a, py::handle b) { return core_program(a).program() == core_program(b).program(); })
      // The texts of `tensorcode info --ir` / `--dot` (the same printer and schedule).
      .def("ir", [](py::handle self_) { return printed(core_program(self_).program(), false); })
      .def("dot", [](py::handle self_) { return printed(core_program(self_).program(), true); })
      // Pickling (copy.deepcopy, pickle, torch.save) goes through the
      // artifact JSON; host bindings are Python callables and never written.
      .def(py::pickle(
          [](py::handle self_) {
            CoreProgram& self = core_program(self_);
            if (self.bindings() && !self.bindings()->map.empty())
              throw py::type_error(
                  "a program with host bindings cannot be pickled or copied (bindings are Python functions and are "
                  "never serialised): pickle the unbound program and bind() it again after loading");
            return tc::save_artifact(self.program());
          },
          [](const std::string& text) {
            auto p = tc::load_artifact(text);
            if (!p) raise_diagnostic(ErrorKind::Artifact, p.error());
            return std::make_shared<CoreProgram>(std::move(p.value()));
          }));
}

}  // namespace tcpy
