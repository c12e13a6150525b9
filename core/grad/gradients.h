#pragma once
/// Reverse-mode differentiation of a circuit in exact, relaxed and hybrid
/// semantics (contract section 4), and a finite-difference gradient check.
///
/// A GradientTape is prepared once per program and output, then run many
/// times; every run reuses the tape's buffers (no allocation per call unless
/// an error message is built or a binding allocates), so one tape serves one
/// thread at a time: give each thread its own. Its forward pass is its
/// own, built on ir/kernels.h like the evaluator's, because a hybrid select's
/// derivative needs the value of the branch the forward did not choose.
///
/// Forward values follow each node's effective semantics exactly like the
/// evaluator (exact and hybrid: checked, chosen branch only; relaxed:
/// continuous), rounded to binary32 per node under dtype float32. Gradients
/// are accumulated in binary64 from those rounded values.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/program.h"

namespace tc {

/// Which differentiable leaves a tape reports gradients for.
enum class GradWrt {
  InputsAndParameters,  ///< `grad`, `gradcheck`
  Parameters,           ///< `fit`: inputs are data, so paths from them never count
  /// Inputs and parameters are reported, and every node counts as a source
  /// of derivatives (as if each had a parameter added to it): node_adjoints.
  AllNodes,
};

struct GradOptions {
  /// Output to differentiate; empty means "result" if present, else the first output.
  std::string output;
  /// Replaces the root semantics; nodes from include keep their own.
  std::optional<Semantics> semantics;
  /// Replaces the root temperature (finite, > 0); nodes from include keep their own.
  std::optional<double> temperature;
  /// Replaces the root surrogate; nodes from include keep their own.
  std::optional<Surrogate> surrogate;
  /// Replaces the program's dtype.
  std::optional<Dtype> dtype;
  /// Bindings for call nodes; must outlive the tape.
  const Bindings* bindings = nullptr;
  GradWrt wrt = GradWrt::InputsAndParameters;
  /// Finite differences turn this off so a step may leave an input's domain.
  bool check_input_domains = true;
  /// The batched tape's compiled plan (BatchGradientTape::plan_status):
  /// when it runs blocks through compiled code, as EvalOptions::plan for the
  /// evaluator (Auto compiles in the background once the work pays for it,
  /// Interpreter never compiles, Compiled waits in the first call). The
  /// results are the same either way.
  EvalPlan plan = EvalPlan::Auto;
};

/// A leaf whose gradient a tape reports: a differentiable input or parameter.
struct GradLeaf {
  std::string name;
  Op op = Op::Input;  ///< Op::Input or Op::Parameter
  NodeId node = 0;
};

/// The value of the chosen output and its gradient per reported leaf.
struct GradResult {
  double result = 0.0;
  /// (leaf name, d result / d leaf) in node order.
  std::vector<std::pair<std::string, double>> gradients;
  /// The gradient for `name`, or nullopt when no such leaf is reported.
  [[nodiscard]] std::optional<double> gradient(std::string_view name) const;
};

class GradientTape {
 public:
  /// Prepares `program` (validated) for the output named in `options`.
  /// Fails for an unknown output, a bad temperature or a call without binding.
  static Result<GradientTape> create(const Program& program, const GradOptions& options = {});
  /// Prepares for several outputs at once (fit's loss combines them);
  /// options.output is ignored.
  static Result<GradientTape> create(const Program& program, const std::vector<std::string>& outputs,
                                     const GradOptions& options);

  GradientTape(GradientTape&&) noexcept;
  GradientTape& operator=(GradientTape&&) noexcept;
  ~GradientTape();

  /// The program with root overrides applied.
  [[nodiscard]] const Program& program() const;
  /// Names of the outputs this tape computes, in the order of every span below.
  [[nodiscard]] const std::vector<std::string>& outputs() const;
  /// Reported leaves, in node order: the order of the gradient spans below.
  [[nodiscard]] const std::vector<GradLeaf>& leaves() const;

  /// Checked forward pass only; writes one value per output.
  /// Env rules are the evaluator's: every input given, no unknown names.
  Status forward(const Env& env, std::span<double> outputs);
  /// Forward then reverse pass with d(loss)/d(output k) = seeds[k]; writes the
  /// output values and d(loss)/d(leaf) per leaf. Fails (naming the node) when a
  /// forward-only binding takes part in differentiation, or when a hybrid
  /// decision's derivative needs an unchosen value that is undefined.
  Status backward(const Env& env, std::span<const double> seeds, std::span<double> outputs,
                  std::span<double> gradients);
  /// Reverse pass over the values of the last successful forward() (or
  /// backward()) call, for callers whose seeds depend on the outputs.
  Status reverse(std::span<const double> seeds, std::span<double> gradients);
  /// Single-output convenience: value and gradients by name.
  Result<GradResult> run(const Env& env);
  /// After a successful reverse pass: d(loss)/d(node) for every node (one per
  /// program node, by id); NaN for nodes outside the outputs' cone, 0 for
  /// nodes in it that no derivative reached. Complete only for a tape created
  /// with GradWrt::AllNodes (otherwise nodes that cannot carry a derivative
  /// from a reported leaf may read 0 where a hybrid rule would give more).
  void node_adjoints(std::span<double> per_node) const;
  /// After a forward pass, successful or not: every node's value as that pass
  /// computed it (one per program node, by id). Unlike a lazy evaluation it
  /// includes the unchosen branches of the cone's selects, which the hybrid
  /// rules read. NaN for nodes outside the cone, undefined ones (failed or
  /// needing a failed node), and for all when no forward pass ran.
  void forward_values(std::span<double> per_node) const;

 private:
  friend class BatchGradientTape;  // runs copies of the prepared tape, one per thread
  struct Impl;
  explicit GradientTape(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// One-shot: prepares a tape and runs it.
Result<GradResult> gradients(const Program& program, const Env& env, const GradOptions& options = {});

struct GradCheckOptions {
  GradOptions grad;
  /// Relative step: h = eps * max(1, |value|).
  double eps = 1e-6;
};

struct GradCheckReport {
  double result = 0.0;
  /// Largest |g - fd| / max(1, |g|, |fd|) over the reported leaves (0 with none).
  double max_rel_diff = 0.0;
  std::vector<std::pair<std::string, double>> gradients;           ///< reverse mode
  std::vector<std::pair<std::string, double>> finite_differences;  ///< (f(v+h) - f(v-h)) / 2h
};

/// Reverse-mode gradients against central finite differences at `env`. Pick
/// points away from decision boundaries; under hybrid semantics the surrogate
/// terms are meant to differ from finite differences of the hard forward.
Result<GradCheckReport> gradient_check(const Program& program, const Env& env, const GradCheckOptions& options = {});

}  // namespace tc
