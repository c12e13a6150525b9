// CoreRuntime: a tc::Runtime (event state) as the TypeScript Runtime's native handle.
#pragma once

#include <memory>
#include <string>

#include "common.h"
#include "program.h"
#include "runtime/runtime.h"

namespace tc::wasm {

class CoreRuntime {
 public:
  CoreRuntime() = default;

  val create(const CoreProgram& program, double max_steps);

  val restore(const std::string& text, const val& spec);

  val dispatch(const val& inputs);

  val step(const val& inputs, const val& state) const;

  /// Dispatches events in order, stopping at the first that fails:
  /// {records: [{step, outputs, state}], failure?: {index, error}}.
  val replay(const val& events);

  std::string snapshot() const { return runtime_->snapshot_text(); }
  val state() const { return number_map(runtime_->state_names(), runtime_->state()); }
  double steps() const { return static_cast<double>(runtime_->steps()); }
  double max_steps() const { return static_cast<double>(runtime_->max_steps()); }
  void program_into(CoreProgram& out) const { out.set(runtime_->program()); }

 private:
  val step_value(const StepResult& r) const;

  std::shared_ptr<Bindings> bindings_;  ///< outlives runtime_ (declared first, destroyed last)
  std::unique_ptr<Runtime> runtime_;
};

}  // namespace tc::wasm
