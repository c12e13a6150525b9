#include "grad/fit.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace tc {

Result<FitReport> fit(const Program& program, const std::vector<FitCase>& cases, const FitOptions& options,
                      std::size_t* failed_case) {
  if (!std::isfinite(options.learning_rate) || options.learning_rate <= 0)
    return make_error("the learning rate must be finite and greater than 0");
  if (options.targets.empty()) return make_error("fit needs at least one target output");
  if (cases.empty()) return make_error("fit needs at least one case");
  for (std::size_t c = 0; c < cases.size(); ++c)
    if (cases[c].targets.size() != options.targets.size()) {
      if (failed_case) *failed_case = c;
      return make_error("case has " + std::to_string(cases[c].targets.size()) + " targets, expected " +
                        std::to_string(options.targets.size()));
    }
  GradOptions go = options.grad;
  go.wrt = GradWrt::Parameters;  // inputs are data: paths from them never count
  auto tape = GradientTape::create(program, options.targets, go);
  if (!tape) return tape.error();

  const auto& leaves = tape->leaves();
  if (leaves.empty()) return make_error("the program has no differentiable parameters to train");
  const std::size_t np = leaves.size(), nt = options.targets.size();
  std::vector<double> params(np), grad(np), m(np, 0.0), v(np, 0.0);
  for (std::size_t k = 0; k < np; ++k) params[k] = program.nodes[static_cast<std::size_t>(leaves[k].node)].value;
  const double scale = 1.0 / static_cast<double>(cases.size());

  // One pass over the data: loss, and d loss / d params when `with_grad`.
  // Cases run in chunks: each case's outputs and gradient are computed (in
  // parallel when threads != 1, one tape per worker since a tape keeps the
  // last pass), then summed in case order, exactly as one thread would.
  const std::size_t nthreads =
      options.threads == 0 ? static_cast<std::size_t>(tbb::info::default_concurrency()) : options.threads;
  const std::size_t chunk = nthreads <= 1 ? 1 : std::min<std::size_t>(cases.size(), 4096);
  std::vector<double> chunk_out(chunk * nt), chunk_grad(chunk * np);
  std::vector<std::optional<Diagnostic>> chunk_err(chunk);
  tbb::enumerable_thread_specific<std::optional<GradientTape>> tapes;
  auto one_case = [&](GradientTape& t, std::size_t c, std::size_t slot, bool with_grad) {
    Env env = cases[c].env;
    for (std::size_t k = 0; k < np; ++k) env.params[leaves[k].name] = params[k];
    std::span<double> out(chunk_out.data() + slot * nt, nt);
    Status s = t.forward(env, out);
    if (s && with_grad) {
      // Seeds must come from this case's outputs: run forward first.
      std::vector<double> sd(nt);
      for (std::size_t j = 0; j < nt; ++j) sd[j] = 2.0 * (out[j] - cases[c].targets[j]) * scale;
      s = t.reverse(sd, std::span<double>(chunk_grad.data() + slot * np, np));
    }
    chunk_err[slot] = s ? std::nullopt : std::optional<Diagnostic>(s.error());
  };
  tbb::task_arena arena(static_cast<int>(std::max<std::size_t>(nthreads, 1)));
  auto pass = [&](bool with_grad) -> Result<double> {
    double loss = 0.0;
    std::fill(grad.begin(), grad.end(), 0.0);
    for (std::size_t begin = 0; begin < cases.size(); begin += chunk) {
      const std::size_t end = std::min(cases.size(), begin + chunk);
      if (nthreads <= 1) {
        for (std::size_t c = begin; c < end; ++c) one_case(*tape, c, c - begin, with_grad);
      } else {
        arena.execute([&] {
          tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, 64), [&](const tbb::blocked_range<std::size_t>& r) {
            auto& t = tapes.local();
            if (!t) {
              auto made = GradientTape::create(program, options.targets, go);
              t.emplace(std::move(made.value()));  // the same arguments succeeded above
            }
            for (std::size_t c = r.begin(); c < r.end(); ++c) one_case(*t, c, c - begin, with_grad);
          });
        });
      }
      for (std::size_t c = begin; c < end; ++c) {
        const std::size_t slot = c - begin;
        if (chunk_err[slot]) {
          if (failed_case) *failed_case = c;
          return *chunk_err[slot];
        }
        for (std::size_t t = 0; t < nt; ++t) {
          const double e = chunk_out[slot * nt + t] - cases[c].targets[t];
          loss += e * e * scale;
        }
        if (with_grad)
          for (std::size_t k = 0; k < np; ++k) grad[k] += chunk_grad[slot * np + k];
      }
    }
    return loss;
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
