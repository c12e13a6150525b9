#pragma once
/// Private to core/eval: the compiled plan, the evaluator's second way to
/// run a program (docs/evaluator.md, "The compiled plan").
///
/// The circuit is written as C by the C exporter's own per-node spelling
/// (emit_c_kernel), compiled at run time by the system C compiler into a
/// shared object (cached on disk by a hash of the source, the compiler and
/// its flags) and called through dlopen. The compiled code computes every
/// needed node with the same IEEE operations as the interpreter (no
/// contraction, no fast-math) and folds every check into one flag per case;
/// a flagged case is re-run by the interpreter, which decides whether the
/// problem was live and words the error, so values, failing cases, nodes
/// and messages are the interpreter's for any thread count.
///
/// The WebAssembly build has no compiler to call: there, and wherever no
/// compiler works, load_plan fails with the reason and the evaluator keeps
/// interpreting.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "eval/evaluator.h"

namespace tc::eval_detail {

struct Prepared;
struct Fixed;

/// The C source of a program's compiled plan and how to call it.
struct PlanSource {
  std::string text;
  /// Per `prm` slot of the kernel: a parameter (false) or a state (true),
  /// and its index in Fixed::params / Fixed::states.
  std::vector<std::pair<bool, std::size_t>> prm;
  std::size_t outputs = 0;  ///< outputs, then one per update (Prepared::targets order)
  /// The target the code was written for ("avx2", ...; part of `text` or the
  /// flags, so of the cache key); empty: the host's, as -march=native picks.
  std::string isa;
  std::vector<std::string> flags;  ///< the target's compiler flags (-march=...; part of the cache key)
};

/// The source, or why the program has no compiled plan (host calls,
/// relaxed nodes: the C exporter's refusals).
Result<PlanSource> compiled_source(const Prepared& p);

/// A loaded shared object.
struct CompiledKernel {
  using OneFn = int (*)(const double* in, const double* prm, double* out);
  using BlockFn = void (*)(long n, const double* const* in, const double* prm, double* const* out, int* flags);
  OneFn one = nullptr;
  BlockFn block = nullptr;
  std::shared_ptr<void> handle;  ///< dlclose on release
  PlanSource src;
  bool cache_hit = false;
  double seconds = 0.0;  ///< generating + compiling (or finding) + loading
  std::string path;      ///< the shared object
};

/// Loads the cached object for `src`, compiling it first if the cache has
/// none. `probe_only`: never compile (fails when not cached).
Result<std::shared_ptr<const CompiledKernel>> load_plan(PlanSource src, bool probe_only);

/// One evaluator's compiled-plan state: the choice, the kernel once loaded,
/// and under EvalPlan::Auto the interpreter work seen so far (see
/// docs/evaluator.md for the rule). Thread-safe.
class PlanState {
 public:
  explicit PlanState(EvalPlan choice) : choice_(choice) {}
  /// The kernel to use for a call that the interpreter would spend
  /// `node_cases` node evaluations of kind `batched` on, or null.
  const CompiledKernel* kernel_for(const Prepared& p, double node_cases, bool batched);
  [[nodiscard]] PlanStatus status() const;

 private:
  void try_load(const Prepared& p, bool probe_only);
  EvalPlan choice_;
  mutable std::mutex m_;
  std::shared_ptr<const CompiledKernel> kernel_;
  std::atomic<const CompiledKernel*> ready_{nullptr};  ///< kernel_, once loaded (never changes after)
  // Read before the lock on every run() and run_batch(), so that a call with
  // nothing due (the usual one) takes no mutex: atomics, written under m_.
  std::atomic<bool> probed_{false}, failed_{false};
  std::atomic<double> spent_s_{0.0};  ///< estimated interpreter seconds so far (Auto)
  std::string reason_;
};

/// run() through the kernel: true with `out` filled when the case raised no
/// flag; false when the interpreter must decide the case.
bool run_case_compiled(const CompiledKernel& k, const Prepared& p, const double* inputs, const Fixed& fixed,
                       CaseResult& out);

/// run_batch through the kernel (flagged cases re-run by the interpreter).
Status run_batch_compiled(const CompiledKernel& k, const Prepared& p, std::span<const std::span<const double>> columns,
                          std::size_t count, const Env& fixed_env, BatchResult& out, unsigned threads);

}  // namespace tc::eval_detail
