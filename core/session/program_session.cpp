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

Result<Analysis> ProgramSession::analyze(const AnalyzeOptions& options) const {
  return tc::analyze(*program_, options);
}

Result<Optimized> ProgramSession::optimize(const OptimizeOptions& options) const {
  return tc::optimize(*program_, options);
}

Result<Schedule> ProgramSession::schedule() const { return tc::schedule(*program_); }

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
  if (options.plan != EvalPlan::Interpreter)
    if (std::optional<GradResult> r = compiled_gradients(**tape, env, options.plan)) return std::move(*r);
  return (*tape)->run(env);
}

std::optional<GradResult> ProgramSession::compiled_gradients(const GradientTape& tape, const Env& env, EvalPlan plan) {
  if (tape.outputs().size() != 1) return std::nullopt;
  const std::string& name = tape.outputs()[0];
  std::shared_ptr<BatchGradientTape> bt;
  if (plan == EvalPlan::Compiled) {
    auto it = compiled_tapes_.find(name);
    if (it == compiled_tapes_.end()) {
      GradOptions o;
      o.bindings = bindings_.get();
      o.plan = EvalPlan::Compiled;
      auto made = BatchGradientTape::create(*program_, {name}, o);
      it = compiled_tapes_.emplace(name, made ? std::make_shared<BatchGradientTape>(std::move(*made)) : nullptr).first;
    }
    bt = it->second;
  } else {
    // Auto: the output's batched tape (the bridge's), once its work has paid
    // for a plan and the plan is loaded.
    auto it = batch_tapes_.find(name);
    if (it != batch_tapes_.end() && it->second->compiled()) bt = it->second;
  }
  if (!bt || !bt->uses_blocks()) return std::nullopt;
  // Exactly the tape's inputs, one case: anything else is the per-case
  // tape's to word.
  const std::vector<std::string>& names = bt->inputs();
  if (env.inputs.size() != names.size()) return std::nullopt;
  std::vector<double> values(names.size());
  for (std::size_t k = 0; k < names.size(); ++k) {
    auto f = env.inputs.find(names[k]);
    if (f == env.inputs.end()) return std::nullopt;
    values[k] = f->second;
  }
  std::vector<std::span<const double>> columns;
  for (const double& v : values) columns.emplace_back(&v, 1);
  Env fixed;
  fixed.params = env.params;
  fixed.state = env.state;
  double out = 0.0;
  BatchRecord record;
  CaseErrors errors;
  const BatchGradOptions one_case{1, true};
  if (!bt->forward(columns, 1, fixed, std::span<double>(&out, 1), &record, one_case, &errors) || record.failed(0))
    return std::nullopt;
  if (!bt->compiled()) {  // Compiled, but the plan did not load: never again
    if (plan == EvalPlan::Compiled) compiled_tapes_[name] = nullptr;
    return std::nullopt;
  }
  const double seed = 1.0;
  const std::vector<std::span<const double>> seeds{std::span<const double>(&seed, 1)};
  std::vector<double> gin(bt->input_leaf_count()), gpar(bt->parameter_leaf_count());
  if (!bt->reverse(record, seeds, gin, gpar, one_case, &errors) || !errors.empty()) return std::nullopt;
  GradResult r;
  r.result = out;
  std::size_t in = 0, pm = 0;
  for (const GradLeaf& leaf : bt->leaves()) r.gradients.emplace_back(leaf.name, leaf.op == Op::Input ? gin[in++] : gpar[pm++]);
  return r;
}

}  // namespace tc
