#pragma once
/// ProgramSession: a program with what every client keeps beside it, held in
/// one place. The Python classes, the TypeScript classes, the IDE's engine
/// and the CLI each used to prepare and cache their own evaluators (per
/// dtype override and plan) and gradient tapes (per output); they now ask a
/// session, so a cache rule, a new policy knob or the plan status is
/// written once. Clients keep only argument conversion and error mapping.
///
/// Like the evaluators and tapes it holds, a session serves one thread at a
/// time (a tape reuses its buffers between runs).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "eval/evaluator.h"
#include "grad/batch_gradients.h"
#include "grad/gradients.h"
#include "passes/analyze.h"
#include "passes/optimize.h"
#include "passes/schedule.h"
#include "ir/policy.h"
#include "ir/program.h"

namespace tc {

class ProgramSession {
 public:
  /// `bindings` (may be null) serve the program's call nodes; the session
  /// shares their ownership with the client.
  explicit ProgramSession(Program program, std::shared_ptr<const Bindings> bindings = nullptr);
  /// A program the client shares (the IDE's document keeps it too): no copy.
  explicit ProgramSession(std::shared_ptr<const Program> program, std::shared_ptr<const Bindings> bindings = nullptr);
  ProgramSession(ProgramSession&&) noexcept;
  ProgramSession& operator=(ProgramSession&&) noexcept;
  ~ProgramSession();

  [[nodiscard]] const Program& program() const { return *program_; }
  [[nodiscard]] const std::shared_ptr<const Program>& shared_program() const { return program_; }
  [[nodiscard]] const Bindings* bindings() const { return bindings_.get(); }
  [[nodiscard]] const std::shared_ptr<const Bindings>& shared_bindings() const { return bindings_; }

  /// The evaluator for a dtype override (none: the program's) and a plan,
  /// prepared on first use and kept for the session's life. A failed
  /// preparation is returned again on the next call (nothing is kept).
  Result<Evaluator*> evaluator(std::optional<Dtype> dtype = std::nullopt, EvalPlan plan = EvalPlan::Auto);
  /// The evaluator under a caller's policy laid over the program (the IDE's
  /// panel semantics and temperature): the program's own evaluators when
  /// the policy changes nothing, else one kept for the last policy asked
  /// for and replaced when another is asked for. A bad temperature is an error.
  Result<Evaluator*> evaluator(const Policy& policy, EvalPlan plan);
  /// The tier of the evaluator used last (the program's own Auto evaluator
  /// when none was used yet, prepared for the question).
  Result<PlanStatus> plan_status();

  /// The gradient tape of `output` (empty: "result" if present, else the
  /// first output) under the program's own policy, prepared on first use.
  Result<GradientTape*> tape(std::string_view output);
  /// One tape over every output, in Program::outputs order.
  Result<GradientTape*> all_outputs_tape();

  /// The batched tape of `output` (empty: every output, in Program::outputs
  /// order: the torch bridge's), prepared on first use. Shared, so a record
  /// a client keeps for a later backward keeps its tape alive after the
  /// session is gone.
  Result<std::shared_ptr<BatchGradientTape>> batch_tape(std::string_view output);

  /// Gradients of one case. The kept tape of options.output, unless
  /// `options` lays a policy of its own (semantics, temperature, surrogate,
  /// dtype), asks other leaves, or a tape of this session is already
  /// running (a binding differentiating the program it was called from):
  /// those prepare a tape for this call alone. options.bindings is ignored:
  /// the session's serve.
  ///
  /// The case runs through compiled code (the batched tape's compiled plan,
  /// as a block of one case) where options.plan is Compiled (the plan is
  /// compiled in the first such call) or, under Auto, where this output's
  /// batched tape already has its plan loaded; Interpreter never. A case the
  /// compiled code cannot vouch for (any failure or non-finite value), an
  /// Env that is not exactly the tape's inputs, and a program without a
  /// plan run the per-case tape, so values, gradients and errors are its.
  Result<GradResult> gradients(const Env& env, GradOptions options);

  /// The interval analysis of the program (options: parameter values to
  /// assume, free parameters, a root semantics or dtype laid over).
  [[nodiscard]] Result<Analysis> analyze(const AnalyzeOptions& options = {}) const;
  /// The optimized program with its figures; derived() makes the session
  /// a client keeps for it (the same bindings serve its call nodes).
  [[nodiscard]] Result<Optimized> optimize(const OptimizeOptions& options = {}) const;
  /// A new session over `program` with this session's bindings: the
  /// program an optimize, a freeze or new parameter values made from it.
  [[nodiscard]] ProgramSession derived(Program program) const { return ProgramSession(std::move(program), bindings_); }
  /// The schedule layers of the program (the graph's columns).
  [[nodiscard]] Result<Schedule> schedule() const;

  /// Whether one of this session's tapes is running.
  [[nodiscard]] bool differentiating() const { return differentiating_; }
  /// Marks a tape of this session as running for its lifetime (clients that
  /// run a tape themselves, e.g. forward/backward of all outputs).
  class Running {
   public:
    explicit Running(ProgramSession& s) : flag_(s.differentiating_), was_(flag_) { flag_ = true; }
    ~Running() { flag_ = was_; }
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

   private:
    bool& flag_;
    bool was_;
  };

 private:
  /// Evaluators by (dtype override: 0 none, 1 + Dtype) x EvalPlan.
  static constexpr std::size_t kDtypeSlots = 3, kPlanSlots = 3;

  std::shared_ptr<const Program> program_;
  std::shared_ptr<const Bindings> bindings_;
  std::unique_ptr<Evaluator> evaluators_[kDtypeSlots][kPlanSlots];
  /// The evaluator of the last policy that changes the program, and its key.
  std::unique_ptr<Evaluator> policy_evaluator_;
  Policy policy_;
  EvalPlan policy_plan_ = EvalPlan::Auto;
  Evaluator* last_ = nullptr;
  std::map<std::string, GradientTape, std::less<>> tapes_;  ///< by the output asked for
  std::unique_ptr<GradientTape> all_outputs_;
  std::map<std::string, std::shared_ptr<BatchGradientTape>, std::less<>> batch_tapes_;  ///< "" = every output
  /// gradients() under EvalPlan::Compiled: a batched tape per output with
  /// the Compiled choice (null once its plan failed: the per-case tape).
  std::map<std::string, std::shared_ptr<BatchGradientTape>, std::less<>> compiled_tapes_;
  /// The compiled path of gradients(), or nullopt: the per-case tape decides.
  std::optional<GradResult> compiled_gradients(const GradientTape& tape, const Env& env, EvalPlan plan);
  bool differentiating_ = false;
};

}  // namespace tc
