// What tensorcode.program's rich display (display.py) draws, computed by
// core: every node's value on one case (the evaluator's trace, as the IDE's
// inspector shows it), every node's adjoint from one reverse pass
// (grad/node_adjoints.h, as the IDE's gradient view), and the circuit's dot
// text for all nodes or a subset (ir/printer.h, `tensorcode info --dot`).
//
// A failing run or gradient is returned as data (the display marks the node
// and says why), not raised: a picture of the failure is the point.
#include <cmath>
#include <optional>

#include "grad/node_adjoints.h"
#include "ir/domain.h"
#include "ir/printer.h"
#include "passes/schedule.h"
#include "program.h"

namespace tcpy {

namespace {

py::object number_or_none(double v) { return std::isnan(v) ? py::object(py::none()) : py::object(py::float_(v)); }

py::dict error_dict(const tc::Diagnostic& d) {
  py::dict e;
  e["message"] = to_str(d.message);
  e["node"] = d.node ? py::object(py::int_(*d.node)) : py::object(py::none());
  e["related"] = d.related ? py::object(py::int_(*d.related)) : py::object(py::none());
  e["line"] = d.loc && d.loc->valid() ? py::object(py::int_(d.loc->line)) : py::object(py::none());
  e["column"] = d.loc && d.loc->valid() ? py::object(py::int_(d.loc->column)) : py::object(py::none());
  e["hybrid_needs_unchosen"] = d.code == tc::DiagCode::HybridNeedsUnchosen;
  // A binding's exception belongs to this failure only; drop it.
  clear_stashed_error();
  return e;
}

std::optional<tc::Semantics> semantics_arg(py::handle semantics) {
  if (semantics.is_none()) return std::nullopt;
  const auto name = semantics.cast<std::string>();
  auto s = tc::semantics_from(name);
  if (!s) throw py::value_error("semantics must be 'exact', 'relaxed' or 'hybrid', not '" + name + "'");
  return s;
}

tc::Env env_of(py::handle inputs, py::handle params) {
  tc::Env env;
  fill_named(inputs, env.inputs, "input");
  if (!params.is_none()) fill_named(params, env.params, "parameter");
  return env;
}

py::list numbers(const std::vector<double>& values) {
  py::list out;
  for (double v : values) out.append(number_or_none(v));
  return out;
}

}  // namespace

void bind_node_view(py::module_& m) {
  m.def(
      "node_values",
      [](py::handle self, py::handle inputs, py::handle params, py::handle semantics) {
        CoreProgram& core = core_program(self);
        tc::Policy policy;
        policy.semantics = semantics_arg(semantics);
        py::dict out;
        clear_stashed_error();
        // The session's interpreter (the trace is the interpreter's), kept between calls.
        auto ev = core.session().evaluator(policy, tc::EvalPlan::Interpreter);
        if (!ev) raise_diagnostic(ErrorKind::Evaluation, ev.error());
        tc::CaseTrace trace;
        auto r = (*ev)->run(env_of(inputs, params), &trace);
        py::list branch;
        for (std::int8_t b : trace.branch) branch.append(static_cast<int>(b));
        out["values"] = numbers(trace.values);
        out["branch"] = branch;
        if (r) {
          py::dict outputs;
          for (std::size_t k = 0; k < core.program().outputs.size(); ++k)
            outputs[to_str(core.program().outputs[k].first)] = r->outputs[k];
          out["outputs"] = outputs;
          out["error"] = py::none();
        } else {
          out["outputs"] = py::none();
          out["error"] = error_dict(r.error());
        }
        return out;
      },
      py::arg("program"), py::arg("inputs"), py::arg("params"), py::arg("semantics"));
  m.def(
      "node_gradients",
      [](py::handle self, py::handle inputs, const std::string& output, py::handle params, py::handle semantics) {
        const CoreProgram& core = core_program(self);
        tc::GradOptions options;
        options.output = output;
        options.bindings = core.binding_map();
        options.semantics = semantics_arg(semantics);
        std::vector<double> forward;
        clear_stashed_error();
        auto r = tc::node_adjoints(core.program(), env_of(inputs, params), options, &forward);
        py::dict out;
        out["forward"] = numbers(forward);
        if (r) {
          out["adjoint"] = numbers(r->adjoint);
          py::dict grads;
          for (const auto& [name, d] : r->gradients) grads[to_str(name)] = d;
          out["gradients"] = grads;
          out["result"] = r->result;
          out["error"] = py::none();
        } else {
          out["adjoint"] = py::none();
          out["gradients"] = py::none();
          out["result"] = py::none();
          out["error"] = error_dict(r.error());
        }
        return out;
      },
      py::arg("program"), py::arg("inputs"), py::arg("output"), py::arg("params"), py::arg("semantics"));
  m.def(
      "dot",
      [](py::handle self, py::handle subset) {
        CoreProgram& core = core_program(self);
        const tc::Program& p = core.program();
        auto sched = core.session().schedule();
        const std::vector<int> layers = sched ? sched->layer_of : std::vector<int>();
        if (subset.is_none()) return to_str(tc::to_dot(p, layers));
        std::vector<tc::NodeId> ids;
        for (py::handle h : py::reinterpret_borrow<py::iterable>(subset)) ids.push_back(h.cast<tc::NodeId>());
        return to_str(tc::to_dot(p, layers, &ids));
      },
      py::arg("program"), py::arg("subset"));
}

}  // namespace tcpy
