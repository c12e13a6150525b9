#pragma once
/// A batched reverse pass: forward values and vector-Jacobian products for a
/// whole batch of cases in one call, over one prepared gradient tape.
///
/// Every case runs the GradientTape's own per-case code (the same checks,
/// the same derivative rules, in exact, relaxed and hybrid semantics), so a
/// case's values, gradients and error are bit for bit those of
/// GradientTape::forward and GradientTape::reverse on that case alone.
/// What the batch adds: inputs come as columns, workers share the cases
/// (oneTBB, like Evaluator::run_batch), and the forward writes each case's
/// value table into a BatchRecord that the reverse pass reads, so backward
/// never runs the forward again.
///
/// Parameter gradients are summed over the cases in case order, one case at
/// a time, after every case is done: the bits do not depend on the thread
/// count or on which worker ran which case.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "grad/gradients.h"

namespace tc {

struct BatchGradOptions {
  /// Workers sharing the cases (0: every core). Bindings are called from
  /// these workers: give 1 for bindings that are not thread-safe.
  unsigned threads = 1;
  /// Off: the call stops at the first failing case and returns its error
  /// ("case N: ..."). On: a failing case gets NaN outputs and zero
  /// gradients, takes no part in the parameter sums, and is listed.
  bool mask_failures = false;
};

/// (case index, the error the per-case tape reports), ascending case.
using CaseErrors = std::vector<std::pair<std::size_t, Diagnostic>>;

/// Block buffers of finished records, kept for the next forward (a fresh
/// buffer of this size costs a page fault per 4 KiB on every call).
struct BatchBufferPool;
struct BatchBufferRelease {
  std::shared_ptr<BatchBufferPool> pool;
  std::size_t size = 0;
  void operator()(double* p) const;
};

/// What a batched forward keeps for the reverse pass: one value and failure
/// table per case (program nodes x cases), plus the cases that failed.
class BatchRecord {
 public:
  [[nodiscard]] std::size_t count() const { return count_; }
  /// The forward's failing cases (with mask_failures off: the first only).
  [[nodiscard]] const CaseErrors& errors() const { return errors_; }
  [[nodiscard]] bool failed(std::size_t c) const { return failed_[c] != 0; }

 private:
  friend class BatchGradientTape;
  const void* owner_ = nullptr;  ///< the tape that wrote it
  std::size_t count_ = 0, stride_ = 0;
  bool blocks_used_ = false;  ///< the forward ran block kernels (the reverse does too)
  /// Per-case rows (node values and failures), or with the block kernels
  /// blocks_ [block][slot][lane] (the values the derivative rules read,
  /// State::slot_of) plus, for the cases the per-case code ran (slow_),
  /// their rows.
  std::vector<double> val_;
  std::vector<std::int32_t> fail_;
  std::unique_ptr<double[], BatchBufferRelease> blocks_;  ///< not zero-filled: every value read is written first
  std::size_t blocks_size_ = 0;
  std::vector<std::pair<std::size_t, double>> fixed_;  ///< parameter and state values of the forward
  std::vector<std::uint8_t> slow_;
  /// The rows of the slow_ cases, ascending case: only those (two empty
  /// vectors for every case were 196 KB written and 8192 destructors run
  /// per forward at 4096 cases).
  struct SlowRows {
    std::size_t c = 0;
    std::vector<double> val;
    std::vector<std::int32_t> fail;
  };
  std::vector<SlowRows> slow_rows_;
  std::vector<std::uint8_t> failed_;
  /// Messages of the nodes that failed themselves, per case; kept only for
  /// programs whose hybrid derivative rules may quote them.
  std::vector<std::vector<std::pair<NodeId, std::string>>> why_;
  CaseErrors errors_;
};

class BatchGradientTape {
 public:
  /// Prepares like GradientTape::create for these outputs.
  static Result<BatchGradientTape> create(const Program& program, const std::vector<std::string>& outputs,
                                          const GradOptions& options);

  BatchGradientTape(BatchGradientTape&&) noexcept;
  BatchGradientTape& operator=(BatchGradientTape&&) noexcept;
  ~BatchGradientTape();

  [[nodiscard]] const Program& program() const;
  /// Output names: the order of output columns and seed columns.
  [[nodiscard]] const std::vector<std::string>& outputs() const;
  /// Input names in the order of the input columns (ascending name).
  [[nodiscard]] const std::vector<std::string>& inputs() const;
  /// Reported leaves in node order. The input leaves, in this order, are the
  /// rows of `input_gradients`; the parameter leaves those of
  /// `parameter_gradients`.
  [[nodiscard]] const std::vector<GradLeaf>& leaves() const;
  /// Whether batches of 8 cases or more run through the block kernels: every
  /// op of the cone has one, which is every op but call (a host function is
  /// called once per case, exactly as the per-case tape calls it), gather and
  /// gather_one_hot included. Smaller batches and programs with a call run
  /// case by case; so do the cases a block flags (any failure or non-finite
  /// value), whose values and errors the per-case code then gives.
  [[nodiscard]] bool uses_blocks() const;
  /// Whether blocks run through the compiled plan (GradOptions::plan), and
  /// why not; compiled_cases and handed_back count the lanes its forward
  /// ran and those it flagged (run by the per-case code instead).
  [[nodiscard]] PlanStatus plan_status() const;
  /// Whether the compiled plan is loaded (cheap: no lock, no words).
  [[nodiscard]] bool compiled() const;
  [[nodiscard]] std::size_t input_leaf_count() const;
  [[nodiscard]] std::size_t parameter_leaf_count() const;

  /// `count` cases; columns[k] holds input k (inputs() order) for every case,
  /// or one value that every case shares. Parameters and state come from
  /// `fixed` (unknown names are an error; its inputs must be empty).
  /// Writes outputs[o * count + c]. With `record`, keeps what reverse() needs.
  /// Failing cases are listed in `errors` (and the record) when given.
  Status forward(std::span<const std::span<const double>> columns, std::size_t count, const Env& fixed,
                 std::span<double> outputs, BatchRecord* record, const BatchGradOptions& options = {},
                 CaseErrors* errors = nullptr);

  /// The reverse pass over a record of this tape: seeds[o] is d(loss)/d(output
  /// o) per case (or one value for every case). Writes
  /// input_gradients[j * count + c] for input leaf j and the parameter
  /// gradients summed over the cases. Failing cases (forward or reverse) are
  /// listed in `errors` when given.
  Status reverse(BatchRecord& record, std::span<const std::span<const double>> seeds,
                 std::span<double> input_gradients, std::span<double> parameter_gradients,
                 const BatchGradOptions& options = {}, CaseErrors* errors = nullptr);

 private:
  using TapeImpl = GradientTape::Impl;
  struct State;
  explicit BatchGradientTape(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace tc
