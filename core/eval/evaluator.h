#pragma once
/// The checked CPU reference evaluator (forward values).
///
/// An Evaluator is prepared once per program and then run many times: the
/// single-case entry point is for the CLI, the runtime and the IDE; the
/// batched entry point evaluates a block of cases per node visit (structure
/// of arrays) for verify, `run --cases` and benchmarks. Both follow the
/// program's semantics per node (exact and hybrid forward are the checked
/// exact semantics; relaxed forward is continuous and unchecked) and its
/// dtype (float32 rounds every node result to binary32).
///
/// Errors (contract section 4): NaN, infinity, division by zero, an invalid
/// index, a value outside a node's domain, a failing binding. The message
/// names the node id, op and source location. Exact select evaluates only
/// the chosen branch, and nodes that no output or update needs are not
/// evaluated, so their errors never surface.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

/// A host function bound to `call` nodes by name. Never serialized.
struct Binding {
  /// Forward value; a non-finite result is reported as an error of the call node.
  std::function<double(std::span<const double> args)> forward;
  /// Optional VJP: one partial derivative d(result)/d(arg_i) per argument.
  /// Empty means forward-only: taking part in differentiation is an error.
  std::function<std::vector<double>(std::span<const double> args, double result)> vjp;
};
using Bindings = std::map<std::string, Binding, std::less<>>;

/// Named values for one case. Parameters default to their stored value and
/// state to its initial value; every input must be given.
struct Env {
  std::map<std::string, double, std::less<>> inputs;
  std::map<std::string, double, std::less<>> params;
  std::map<std::string, double, std::less<>> state;
};

/// How run() and run_batch() compute; the results are the same either way
/// (docs/evaluator.md, "The compiled plan").
enum class EvalPlan : std::uint8_t {
  /// The interpreter, until the work seen would have paid for compiling
  /// (or for finding the plan in the on-disk cache): then the plan is
  /// compiled on a background thread while calls go on interpreting, and
  /// the first call after it is loaded switches. Never waits for a compile.
  Auto,
  Interpreter,  ///< never compile
  Compiled,     ///< compile (or load) in the first call, which waits for it; the interpreter when that fails
};

struct EvalOptions {
  const Bindings* bindings = nullptr;       ///< must outlive the Evaluator
  std::optional<Semantics> semantics;       ///< replaces the root semantics (nodes from include keep theirs)
  std::optional<Dtype> dtype;               ///< replaces the program's dtype
  EvalPlan plan = EvalPlan::Auto;
};

/// Whether an evaluator runs its compiled plan, and why not.
struct PlanStatus {
  bool compiled = false;       ///< run() (without a trace) and run_batch() call compiled code
  bool compiling = false;      ///< Auto: a background compile is under way; calls interpret meanwhile
  std::string reason;          ///< why not (no compiler, host calls, cache refused, ...); empty when compiled or not tried yet
  /// One line for people: "compiled (avx2)", "interpreting: compiling in
  /// background", "interpreting: no C compiler: ...", "interpreting: cache
  /// refused: ...", "interpreting: the interpreter was chosen".
  std::string summary;
  std::string isa;             ///< the compiled code's target ("avx2", ...), when compiled
  bool cache_hit = false;      ///< the shared object came from the on-disk cache
  double compile_seconds = 0;  ///< writing the C, compiling (or finding) and loading it
  std::string path;            ///< the shared object
  std::uint64_t compiled_cases = 0;  ///< cases run_batch ran through the compiled code
  /// Cases the compiled code flagged and handed back to the interpreter
  /// (run_batch's and run()'s): a kernel that flags everything is as slow as
  /// the interpreter and shows here.
  std::uint64_t handed_back = 0;
};

/// Values one case produced.
struct CaseResult {
  std::vector<double> outputs;     ///< in Program::outputs order
  std::vector<double> next_state;  ///< in Program::updates order: what the updates would commit
};

/// Per-node record of one case, for the IDE inspector and the runtime trace.
struct CaseTrace {
  std::vector<double> values;          ///< per node; NaN where not computed
  std::vector<std::uint8_t> computed;  ///< 1 where the node was evaluated
  std::vector<std::int8_t> branch;     ///< select nodes: 1 took `yes`, 0 took `no`; -1 otherwise
};

/// Results of a batch: one column per output, plus per-case failures.
struct BatchResult {
  std::size_t count = 0;
  std::vector<std::vector<double>> outputs;          ///< [output][case]; unspecified where failed
  std::vector<std::vector<double>> next_state;       ///< [update][case]
  std::vector<std::uint8_t> failed;                  ///< [case] 1 when the case raised
  std::vector<std::pair<std::size_t, Diagnostic>> errors;  ///< (case, error), ascending case
};

class Evaluator;
namespace eval_detail {
struct Prepared;
/// For core/eval and its tests only: the flat form an evaluator runs.
const Prepared& prepared_of(const Evaluator& ev);
}  // namespace eval_detail

class Evaluator {
 public:
  /// Prepares a validated program. Fails if a call node has no binding.
  static Result<Evaluator> create(const Program& program, EvalOptions options = {});

  Evaluator(Evaluator&&) noexcept;
  Evaluator& operator=(Evaluator&&) noexcept;
  ~Evaluator();

  [[nodiscard]] const Program& program() const;
  /// Input node ids in ascending order: the column order of run_batch.
  [[nodiscard]] const std::vector<NodeId>& input_ids() const;

  /// One checked case. A missing or unknown input name, or a value outside
  /// an input's domain, is an error naming the input.
  [[nodiscard]] Result<CaseResult> run(const Env& env, CaseTrace* trace = nullptr) const;

  /// `count` cases; columns[k][c] is input k (input_ids order) of case c.
  /// Parameters and state come from `fixed` (its inputs are ignored). Input
  /// values are checked against their domains per case. `threads` workers
  /// share the blocks of cases (0: every core); the result is bit-identical
  /// and in the same order whatever the thread count.
  [[nodiscard]] Status run_batch(std::span<const std::span<const double>> columns, std::size_t count,
                                 const Env& fixed, BatchResult& out, unsigned threads = 1) const;

  /// The compiled plan's state (EvalOptions::plan).
  [[nodiscard]] PlanStatus plan_status() const;

 private:
  friend const eval_detail::Prepared& eval_detail::prepared_of(const Evaluator& ev);
  struct Impl;
  explicit Evaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tc
