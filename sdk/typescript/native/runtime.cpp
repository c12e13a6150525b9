// CoreRuntime: a tc::Runtime (event state) as the TypeScript Runtime's native handle (runtime.h).
#include "runtime.h"

#include <cmath>
#include <cstdint>

namespace tc::wasm {

val CoreRuntime::create(const CoreProgram& program, double max_steps) {
  if (!(max_steps >= 0) || max_steps != std::floor(max_steps) || max_steps > 9007199254740992.0)
    return error_value("runtime", "maxSteps must be a non-negative integer");
  bindings_ = program.bindings();
  auto r = Runtime::create(program.program(), static_cast<std::uint64_t>(max_steps), bindings_.get());
  if (!r) return error_value("runtime", r.error(), false);
  runtime_ = std::make_unique<Runtime>(std::move(*r));
  return ok_value();
}

val CoreRuntime::restore(const std::string& text, const val& spec) {
  if (!spec.isUndefined() && !spec.isNull()) bindings_ = bindings_from(spec);
  auto r = Runtime::restore_text(text, bindings_.get());
  if (!r) return error_value("snapshot", r.error(), false);
  runtime_ = std::make_unique<Runtime>(std::move(*r));
  return ok_value();
}

val CoreRuntime::dispatch(const val& inputs) {
  auto named = named_numbers(inputs, "input");
  if (!named) return error_value("evaluation", named.error());
  auto r = runtime_->dispatch(*named);
  if (!r) return error_value("evaluation", r.error());
  return ok_value(step_value(*r));
}

val CoreRuntime::step(const val& inputs, const val& state) const {
  auto named = named_numbers(inputs, "input");
  if (!named) return error_value("evaluation", named.error());
  NamedValues st;
  if (state.isUndefined() || state.isNull()) {
    st = runtime_->state_map();
  } else {
    auto s = named_numbers(state, "state");
    if (!s) return error_value("evaluation", s.error());
    st = std::move(*s);
  }
  auto r = runtime_->step(*named, st);
  if (!r) return error_value("evaluation", r.error());
  return ok_value(step_value(*r));
}

val CoreRuntime::replay(const val& events) {
  // As Python's Runtime.replay: event by event, one {step, outputs, state}
  // record per committed event; the first event that is malformed or fails
  // stops it, reported with its index and the records before it.
  const unsigned n = events["length"].as<unsigned>();
  val records = val::array();
  val o = val::object();
  o.set("records", records);
  for (unsigned i = 0; i < n; ++i) {
    auto named = named_numbers(events[i], "input");
    Result<StepResult> r = named ? runtime_->dispatch(*named) : Result<StepResult>(named.error());
    if (!r) {
      Diagnostic d = r.error();
      d.message = "event " + std::to_string(i) + ": " + d.message;
      val f = val::object();
      f.set("index", i);
      f.set("error", error_value("evaluation", d)["error"]);
      o.set("failure", f);
      return ok_value(o);
    }
    val record = step_value(*r);
    record.set("step", static_cast<double>(runtime_->steps()));
    records.call<void>("push", record);
  }
  return ok_value(o);
}

val CoreRuntime::step_value(const StepResult& r) const {
  val o = val::object();
  o.set("outputs", number_map(runtime_->output_names(), r.outputs));
  o.set("state", number_map(runtime_->state_names(), r.state));
  return o;
}

}  // namespace tc::wasm
