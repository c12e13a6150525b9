#pragma once
/// Training the parameters of a circuit by gradient descent (`tensorcode fit`).
///
/// The loss is the squared error summed over the targets of a case and
/// averaged over the cases: L = (1/N) sum_c sum_t (output_t(c) - target_t(c))^2.
/// Every step is one full-batch gradient of L; only differentiable parameters
/// move; the program is otherwise returned unchanged.
#include <cstddef>
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
