#pragma once
/// Training the parameters of a circuit by gradient descent (`tensorcode fit`).
///
/// The loss is the squared error summed over the targets of a case and
/// averaged over the cases: L = (1/N) sum_c sum_t (output_t(c) - target_t(c))^2.
/// Every step is one full-batch gradient of L; only differentiable parameters
/// move; the program is otherwise returned unchanged.
#include <cstddef>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/progress.h"
#include "base/result.h"
#include "grad/gradients.h"

namespace tc {

enum class Optimizer { Sgd, Adam };

/// One training case: its inputs and one target per FitOptions::targets entry.
struct FitCase {
  Env env;  ///< inputs (parameters come from the program being trained)
  std::vector<double> targets;
};

/// Data-parallel training (the CLI's MPI layer): every process calls fit()
/// with its own shard of the cases and the same options; after each pass
/// over its shard it hands its partial sums to all_sum, which must replace
/// them by the sums over all shards, identical on every process, so every
/// process applies the same update.
class FitReduction {
 public:
  virtual ~FitReduction() = default;
  /// `sums` holds d loss / d parameter (node order) and then the loss.
  /// `failed`: this shard's pass failed (the values are then meaningless).
  /// Returns an error, on every process, when any shard failed.
  virtual Status all_sum(std::span<double> sums, bool failed) = 0;
};

struct FitOptions {
  std::vector<std::string> targets;  ///< output names, one target value each per case
  Optimizer optimizer = Optimizer::Sgd;
  double learning_rate = 0.01;
  std::size_t steps = 1;
  /// Adam's constants (PyTorch's defaults).
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  /// Semantics/temperature overrides and bindings; output and wrt are ignored.
  GradOptions grad;
  Progress* progress = nullptr;
  /// Worker threads for the per-case passes (0: every core). Losses and
  /// gradients are summed in case order, so any count gives the same bits.
  unsigned threads = 1;
  /// Set for data-parallel training; `cases` is then this process's shard
  /// (possibly empty) and total_cases the number over all shards.
  FitReduction* reduction = nullptr;
  std::size_t total_cases = 0;
};

struct FitReport {
  double initial_loss = 0.0;  ///< before the first step
  double final_loss = 0.0;    ///< after the last step
  std::size_t steps = 0;
  std::vector<std::pair<std::string, double>> parameters;  ///< trained values, node order
  Program program;  ///< the input program with the trained parameter values
};

/// Trains. On a failing case the error names the node and `failed_case`
/// (when given) receives the case's index.
Result<FitReport> fit(const Program& program, const std::vector<FitCase>& cases, const FitOptions& options,
                      std::size_t* failed_case = nullptr);

}  // namespace tc
