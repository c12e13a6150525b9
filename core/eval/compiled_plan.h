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
/// compiler works, the evaluator keeps interpreting and plan_status() says
/// why.
///
/// The cache is trusted only when nobody else can write it (docs/evaluator.md,
/// "The plan cache"): a folder or file not owned by this user, writable by
/// its group or by others, or reached through someone else's symlink is
/// refused, and each shared object's SHA-256 is checked before dlopen.
#include <atomic>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
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
  /// The functions the object must export, found into CompiledKernel::fns
  /// in this order; empty: the evaluator's plan (tc_plan_one, tc_plan_block).
  /// The batched gradient tape's plan (grad/batch_compiled.cpp) names its own.
  std::vector<std::string> symbols;
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
  std::vector<void*> fns;  ///< PlanSource::symbols, when it names them
  std::shared_ptr<void> handle;  ///< dlclose on release
  PlanSource src;
  bool cache_hit = false;
  double seconds = 0.0;  ///< generating + compiling (or finding) + loading
  std::string path;      ///< the shared object
  std::string isa;       ///< what plan_status() names
  /// Cases the kernel ran, and of those the ones it flagged and handed back
  /// to the interpreter (PlanStatus::handed_back).
  mutable std::atomic<std::uint64_t> cases{0}, handed_back{0};
};

/// Why a plan could not be loaded: the words for plan_status(), and whether
/// the cache itself was refused (nothing will load from it).
struct PlanFailure {
  std::string reason;
  bool refused = false;  ///< the cache folder or an entry is not trusted
  bool missing = false;  ///< probe only: not (or not intact) in the cache
};

/// Loads the cached object for `src`, compiling it first if the cache has
/// none or a damaged one. `probe_only`: never compile (`missing` when not
/// cached). `cancel`, when set while the compiler runs, kills it.
std::shared_ptr<const CompiledKernel> load_plan(PlanSource src, bool probe_only, PlanFailure& failure,
                                                const std::atomic<bool>* cancel = nullptr);

struct CompileJob;

/// The interpreter work a call is about to do, which the Auto rule turns
/// into estimated seconds (the constants and their measurements are in
/// compiled_plan.cpp; docs/evaluator.md, "Where the switch is").
enum class PlanWork : std::uint8_t {
  Case,           ///< Evaluator::run(): one case, per node
  Batch,          ///< run_batch: per node and case
  GradientCases,  ///< the batched tape's per-case path (a handful of cases): forward+reverse
  GradientBatch,  ///< the batched tape's block kernels: forward+reverse, per case and per node and case
};

/// The Auto rule's estimate of writing, compiling and loading the plan of a
/// `nodes`-node program for `work` (a gradient plan is the forward and the
/// reverse pass in one source); bench/batch_grad_bench.cpp --compile-times
/// prints it beside the measured time.
double estimated_compile_seconds(std::size_t nodes, PlanWork work);

/// One evaluator's compiled-plan state: the choice, the kernel once loaded,
/// and under EvalPlan::Auto the interpreter work seen so far (see
/// docs/evaluator.md for the rule). Auto compiles on a background thread and
/// switches to the plan at the first call after it is loaded; Compiled
/// compiles in the first call. Thread-safe.
class PlanState {
 public:
  /// Reads $TC_PLAN_COMPILE_AFTER (seconds of estimated interpreter time
  /// after which Auto compiles, instead of the estimated compile time).
  explicit PlanState(EvalPlan choice);
  /// Cancels a compile still queued for this evaluator (one already running
  /// goes on, so the next evaluator of the program finds it in the cache).
  ~PlanState();
  PlanState(const PlanState&) = delete;
  PlanState& operator=(const PlanState&) = delete;
  /// The kernel to use for a call that the interpreter would spend
  /// `node_cases` node evaluations (nodes x cases) of kind `work` on, or null.
  const CompiledKernel* kernel_for(const Prepared& p, double node_cases, PlanWork work);
  /// The same rule for any source: `make` writes it when it is due (under
  /// the state's lock), `nodes` sizes the Auto rule's estimates. The
  /// batched gradient tape's compiled plan is kept by this machinery too.
  using SourceFn = std::function<Result<PlanSource>()>;
  const CompiledKernel* kernel_for(const SourceFn& make, std::size_t nodes, double node_cases, PlanWork work);
  [[nodiscard]] PlanStatus status() const;
  /// Whether a kernel is loaded (no lock: one atomic load).
  [[nodiscard]] bool loaded() const { return ready_.load(std::memory_order_acquire) != nullptr; }

 private:
  void try_load(const SourceFn& make, bool probe_only);
  void start_compile(const SourceFn& make);
  /// Takes the background compile's result once it is there (under m_).
  void adopt_job() const;
  void set_failure(const PlanFailure& f) const;
  EvalPlan choice_;
  double compile_after_s_ = -1;  ///< $TC_PLAN_COMPILE_AFTER; negative: the estimate
  mutable std::mutex m_;
  mutable std::shared_ptr<const CompiledKernel> kernel_;
  mutable std::atomic<const CompiledKernel*> ready_{nullptr};  ///< kernel_, once loaded (never changes after)
  // Read before the lock on every run() and run_batch(), so that a call with
  // nothing due (the usual one) takes no mutex: atomics, written under m_.
  mutable std::atomic<bool> probed_{false}, failed_{false}, compiling_{false};
  std::atomic<double> spent_s_{0.0};  ///< estimated interpreter seconds so far (Auto)
  mutable std::string reason_;
  /// The background compile (Auto), kept while the evaluator lives so that
  /// job_raw_ stays valid for the calls that check it without the lock.
  std::shared_ptr<CompileJob> job_;
  std::atomic<CompileJob*> job_raw_{nullptr};
  std::optional<PlanSource> probed_src_;     ///< the source a probe missed with, kept for the compile
};

/// run() through the kernel: true with `out` filled when the case raised no
/// flag; false when the interpreter must decide the case.
bool run_case_compiled(const CompiledKernel& k, const Prepared& p, const double* inputs, const Fixed& fixed,
                       CaseResult& out);

/// run_batch through the kernel (flagged cases re-run by the interpreter).
Status run_batch_compiled(const CompiledKernel& k, const Prepared& p, std::span<const std::span<const double>> columns,
                          std::size_t count, const Env& fixed_env, BatchResult& out, unsigned threads);

}  // namespace tc::eval_detail
