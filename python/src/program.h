#pragma once
// The core side of tensorcode.program.Program: a validated circuit with its
// prepared evaluator, gradient tapes and optional host bindings.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "grad/gradients.h"
#include "ir/program.h"
#include "session/program_session.h"

namespace tcpy {

class BatchBridge;

class CoreProgram {
 public:
  explicit CoreProgram(tc::Program program, std::shared_ptr<HostBindings> bindings = nullptr);

  const tc::Program& program() const { return session_.program(); }
  /// Core's session: the evaluators and tapes this program keeps.
  tc::ProgramSession& session() { return session_; }
  const std::shared_ptr<HostBindings>& bindings() const { return bindings_; }
  const tc::Bindings* binding_map() const { return bindings_ ? &bindings_->map : nullptr; }

  /// One checked case: {output: value}.
  py::dict run(py::handle inputs, py::handle params, tc::EvalPlan plan = tc::EvalPlan::Auto);
  /// Cases as a list of dicts (-> list of dicts) or a dict of columns
  /// (-> dict of float64 numpy arrays). errors: "raise" or "nan". `threads`
  /// share the blocks of cases (0: every core); programs with call nodes use one.
  py::object run_batch(py::handle cases, py::handle params, const std::string& errors, unsigned threads = 1,
                       tc::EvalPlan plan = tc::EvalPlan::Auto);
  /// {leaf: d output / d leaf} for differentiable inputs and parameters.
  py::dict gradients(py::handle inputs, const std::string& output, py::handle params);
  /// For the torch bridge: outputs (list, Program::outputs order) and, when
  /// `seeds` is not None, the gradients as ({input: g}, {parameter: g}).
  py::tuple forward_backward(py::handle inputs, py::handle params, py::handle seeds);

  /// The evaluator of `plan` (the session's, made on first use); plan_status()
  /// describes the one used last.
  tc::Evaluator& evaluator(tc::EvalPlan plan = tc::EvalPlan::Auto);
  /// Program.plan_status(): the last used evaluator's tier, as a dict.
  py::dict plan_status();
  /// The batched gradient tapes (batch_grad.cpp), created on first use.
  std::shared_ptr<BatchBridge>& batch_bridge() { return batch_; }

 private:
  tc::Env env_from(py::handle inputs, py::handle params) const;
  [[noreturn]] void raise_case_error(const tc::Diagnostic& d, std::size_t case_index) const;

  std::shared_ptr<HostBindings> bindings_;
  /// The program with its evaluators (per plan) and tapes (per output, and
  /// over all outputs for the torch bridge): core's session, not a cache of
  /// this client's own.
  tc::ProgramSession session_;
  tc::Env fast_env_;                 ///< every input name present; values overwritten per call
  std::vector<py::object> out_keys_;  ///< output names as interned str
  std::shared_ptr<BatchBridge> batch_;
};

/// From a Python object: a _core.Program (pybind cast).
CoreProgram& core_program(py::handle o);

void bind_program(py::module_& m);
void bind_batch(py::module_& m);  ///< batch_grad.cpp: after bind_program (adds to Program)
void bind_builder(py::module_& m);
void bind_runtime(py::module_& m);
void bind_verify(py::module_& m);
void bind_misc(py::module_& m);
void bind_fit(py::module_& m);  ///< fit.cpp: Program.fit over core/grad/fit.h
void bind_diff(py::module_& m);  ///< diff.cpp: tensorcode.program.diff over core/diff
void bind_prove(py::module_& m);  ///< prove.cpp: tensorcode.program.prove over core/prove

}  // namespace tcpy
