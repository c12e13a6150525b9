#include "grad/fit.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace tc {

Result<FitReport> fit(const Program& program, const std::vector<FitCase>& cases, const FitOptions& options,
                      std::size_t* failed_case) {
  if (!std::isfinite(options.learning_rate) || options.learning_rate <= 0)
    return make_error("the learning rate must be finite and greater than 0");
  if (options.targets.empty()) return make_error("fit needs at least one target output");
  const std::size_t total = options.reduction ? options.total_cases : cases.size();
  if (total == 0) return make_error("fit needs at least one case");
  GradOptions go = options.grad;
  go.wrt = GradWrt::Parameters;  // inputs are data: paths from them never count
  auto tape = GradientTape::create(program, options.targets, go);
  if (!tape) return tape.error();

  const auto& leaves = tape->leaves();
  if (leaves.empty()) return make_error("the program has no differentiable parameters to train");
  const std::size_t np = leaves.size(), nt = options.targets.size();
  std::vector<double> params(np), grad(np), step_grad(np), m(np, 0.0), v(np, 0.0);
  std::vector<double> outputs(nt), seeds(nt), sums(np + 1);
  for (std::size_t k = 0; k < np; ++k) params[k] = program.nodes[static_cast<std::size_t>(leaves[k].node)].value;
  const double scale = 1.0 / static_cast<double>(total);
  // Checked before the first pass so that with a reduction every shard
  // still takes part in it (a process that returned early would leave the
  // others waiting).
  std::optional<Diagnostic> bad_case;
  for (std::size_t c = 0; c < cases.size() && !bad_case; ++c)
    if (cases[c].targets.size() != nt) {
      if (failed_case) *failed_case = c;
      bad_case = make_error("case has " + std::to_string(cases[c].targets.size()) + " targets, expected " +
                            std::to_string(nt));
    }
  if (bad_case && !options.reduction) return *bad_case;

  // One pass over the data: loss, and d loss / d params when `with_grad`.
  auto local_pass = [&](bool with_grad) -> Result<double> {
    if (bad_case) return *bad_case;
    double loss = 0.0;
    std::fill(grad.begin(), grad.end(), 0.0);
    for (std::size_t c = 0; c < cases.size(); ++c) {
      Env env = cases[c].env;
      for (std::size_t k = 0; k < np; ++k) env.params[leaves[k].name] = params[k];
      Status s = ok_status();
      if (with_grad) {
        // Seeds must come from this case's outputs: run forward first.
        s = tape->forward(env, outputs);
        if (s) {
          for (std::size_t t = 0; t < nt; ++t) seeds[t] = 2.0 * (outputs[t] - cases[c].targets[t]) * scale;
          s = tape->reverse(seeds, step_grad);
        }
      } else {
        s = tape->forward(env, outputs);
      }
      if (!s) {
        if (failed_case) *failed_case = c;
        return s.error();
      }
      for (std::size_t t = 0; t < nt; ++t) {
        const double e = outputs[t] - cases[c].targets[t];
        loss += e * e * scale;
      }
      if (with_grad)
        for (std::size_t k = 0; k < np; ++k) grad[k] += step_grad[k];
    }
    return loss;
  };
  // The pass over every shard: the local sums, then (data-parallel) their
  // sums over all shards. A single process sums in case order; shards add
  // their partial sums, which changes only the summation order.
  auto pass = [&](bool with_grad) -> Result<double> {
    auto loss = local_pass(with_grad);
    if (!options.reduction) return loss;
    std::copy(grad.begin(), grad.end(), sums.begin());
    sums[np] = loss ? *loss : 0.0;
    Status all = options.reduction->all_sum(sums, !loss);
    if (!loss) return loss.error();
    if (!all) return all.error();
    std::copy(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(np), grad.begin());
    return sums[np];
  };

  FitReport report;
  for (std::size_t step = 0; step < options.steps; ++step) {
    if (options.progress) {
      if (options.progress->cancelled()) return make_error("cancelled");
      options.progress->update(step, options.steps, "steps");
    }
    auto loss = pass(true);
    if (!loss) return loss.error();
    if (step == 0) report.initial_loss = *loss;
    const double t = static_cast<double>(step + 1);
    for (std::size_t k = 0; k < np; ++k) {
      if (options.optimizer == Optimizer::Sgd) {
        params[k] -= options.learning_rate * grad[k];
      } else {
        m[k] = options.beta1 * m[k] + (1.0 - options.beta1) * grad[k];
        v[k] = options.beta2 * v[k] + (1.0 - options.beta2) * grad[k] * grad[k];
        const double mhat = m[k] / (1.0 - std::pow(options.beta1, t));
        const double vhat = v[k] / (1.0 - std::pow(options.beta2, t));
        params[k] -= options.learning_rate * mhat / (std::sqrt(vhat) + options.epsilon);
      }
      if (!std::isfinite(params[k]))
        return make_error("parameter '" + leaves[k].name + "' became non-finite at step " + std::to_string(step + 1) +
                          " (try a smaller learning rate)");
    }
  }
  if (options.progress) options.progress->update(options.steps, options.steps, "steps");
  auto final_loss = pass(false);
  if (!final_loss) return final_loss.error();
  report.final_loss = *final_loss;
  if (options.steps == 0) report.initial_loss = *final_loss;
  report.steps = options.steps;
  report.program = program;
  for (std::size_t k = 0; k < np; ++k) {
    report.program.nodes[static_cast<std::size_t>(leaves[k].node)].value = params[k];
    report.parameters.emplace_back(leaves[k].name, params[k]);
  }
  return report;
}

}  // namespace tc
