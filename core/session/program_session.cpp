// ProgramSession (program_session.h): the caches every client used to keep.
#include "session/program_session.h"

#include <vector>

namespace tc {

ProgramSession::ProgramSession(Program program, std::shared_ptr<const Bindings> bindings)
    : program_(std::make_shared<const Program>(std::move(program))), bindings_(std::move(bindings)) {}
ProgramSession::ProgramSession(std::shared_ptr<const Program> program, std::shared_ptr<const Bindings> bindings)
    : program_(std::move(program)), bindings_(std::move(bindings)) {}
ProgramSession::ProgramSession(ProgramSession&&) noexcept = default;
ProgramSession& ProgramSession::operator=(ProgramSession&&) noexcept = default;
ProgramSession::~ProgramSession() = default;

Result<Evaluator*> ProgramSession::evaluator(std::optional<Dtype> dtype, EvalPlan plan) {
  const std::size_t d = dtype ? 1 + static_cast<std::size_t>(*dtype) : 0;
  const std::size_t p = static_cast<std::size_t>(plan);
  if (d >= kDtypeSlots || p >= kPlanSlots) return make_error("internal: no evaluator slot for this dtype and plan");
  std::unique_ptr<Evaluator>& slot = evaluators_[d][p];
  if (!slot) {
    EvalOptions options;
    options.bindings = bindings_.get();
    options.dtype = dtype;
    options.plan = plan;
    auto ev = Evaluator::create(*program_, options);
    if (!ev) return ev.error();
    slot = std::make_unique<Evaluator>(std::move(*ev));
  }
  last_ = slot.get();
  return slot.get();
}

Result<Evaluator*> ProgramSession::evaluator(const Policy& policy, EvalPlan plan) {
  if (Status s = check_policy(policy); !s) return s.error();
  const RootSettings root = resolve(policy, *program_);
  const bool changes = root.semantics != program_->semantics || root.temperature != program_->temperature ||
                       root.surrogate != program_->surrogate;
  if (!changes) return evaluator(policy.dtype, plan);
  if (!policy_evaluator_ || !(policy == policy_) || plan != policy_plan_) {
    policy_evaluator_.reset();
    EvalOptions options;
    options.bindings = bindings_.get();
    options.dtype = policy.dtype;
    options.plan = plan;
    auto ev = Evaluator::create(with_policy(*program_, policy), options);
    if (!ev) return ev.error();
    policy_evaluator_ = std::make_unique<Evaluator>(std::move(*ev));
    policy_ = policy;
    policy_plan_ = plan;
  }
  last_ = policy_evaluator_.get();
  return policy_evaluator_.get();
}

Result<PlanStatus> ProgramSession::plan_status() {
  if (!last_) {
    auto ev = evaluator();
    if (!ev) return ev.error();
  }
  return last_->plan_status();
}

Result<GradientTape*> ProgramSession::tape(std::string_view output) {
  auto it = tapes_.find(output);
  if (it == tapes_.end()) {
    GradOptions options;
    options.output = std::string(output);
    options.bindings = bindings_.get();
    auto tape = GradientTape::create(*program_, options);
    if (!tape) return tape.error();
    it = tapes_.emplace(std::string(output), std::move(*tape)).first;
  }
  return &it->second;
}

Result<GradientTape*> ProgramSession::all_outputs_tape() {
  if (!all_outputs_) {
    std::vector<std::string> names;
    names.reserve(program_->outputs.size());
    for (const auto& [name, _] : program_->outputs) names.push_back(name);
    GradOptions options;
    options.bindings = bindings_.get();
    auto tape = GradientTape::create(*program_, names, options);
    if (!tape) return tape.error();
    all_outputs_ = std::make_unique<GradientTape>(std::move(*tape));
  }
  return all_outputs_.get();
}

Result<std::shared_ptr<BatchGradientTape>> ProgramSession::batch_tape(std::string_view output) {
  auto it = batch_tapes_.find(output);
  if (it != batch_tapes_.end()) return it->second;
  std::vector<std::string> names;
  if (output.empty()) {
    for (const auto& [name, _] : program_->outputs) names.push_back(name);
  } else {
    names.emplace_back(output);
  }
  GradOptions options;
  options.bindings = bindings_.get();
  auto tape = BatchGradientTape::create(*program_, names, options);
  if (!tape) return tape.error();
  // The tape reads the bindings through a plain pointer: whoever keeps the
  // tape keeps them too.
  struct Held {
    std::shared_ptr<const Bindings> bindings;
    BatchGradientTape tape;
  };
  auto held = std::make_shared<Held>(Held{bindings_, std::move(*tape)});
  std::shared_ptr<BatchGradientTape> shared(held, &held->tape);
  batch_tapes_.emplace(std::string(output), shared);
  return shared;
}

Result<GradResult> ProgramSession::gradients(const Env& env, GradOptions options) {
  options.bindings = bindings_.get();
  const bool own_policy = options.semantics || options.temperature || options.surrogate || options.dtype ||
                          options.wrt != GradWrt::InputsAndParameters || !options.check_input_domains;
  if (own_policy || differentiating_) return tc::gradients(*program_, env, options);
  auto tape = this->tape(options.output);
  if (!tape) return tape.error();
  Running running(*this);
  return (*tape)->run(env);
}

}  // namespace tc
