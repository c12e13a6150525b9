// Central finite differences against the reverse-mode gradient.
#include <algorithm>
#include <cmath>

#include "grad/gradients.h"

namespace tc {

Result<GradCheckReport> gradient_check(const Program& program, const Env& env, const GradCheckOptions& options) {
  if (!std::isfinite(options.eps) || options.eps <= 0) return make_error("eps must be finite and greater than 0");
  auto tape = GradientTape::create(program, options.grad);
  if (!tape) return tape.error();
  auto grad = tape->run(env);
  if (!grad) return grad.error();

  // The probes step through the circuit's arithmetic, not the input
  // representation, so they may leave an input's declared range.
  GradOptions probe_options = options.grad;
  probe_options.check_input_domains = false;
  auto probe = GradientTape::create(program, probe_options);
  if (!probe) return probe.error();

  GradCheckReport report;
  report.result = grad->result;
  report.gradients = grad->gradients;
  Env moved = env;
  const auto& leaves = probe->leaves();
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    const GradLeaf& leaf = leaves[k];
    auto& slot = leaf.op == Op::Input ? moved.inputs : moved.params;
    const double base = leaf.op == Op::Input ? env.inputs.at(leaf.name)
                        : env.params.count(leaf.name) ? env.params.at(leaf.name)
                                                      : program.nodes[static_cast<std::size_t>(leaf.node)].value;
    const double h = options.eps * std::max(1.0, std::fabs(base));
    double up = 0.0, down = 0.0;
    slot[leaf.name] = base + h;
    if (Status s = probe->forward(moved, std::span<double>(&up, 1)); !s) {
      Diagnostic d = s.error();
      d.message = "finite difference at " + leaf.name + " + h: " + d.message;
      return d;
    }
    slot[leaf.name] = base - h;
    if (Status s = probe->forward(moved, std::span<double>(&down, 1)); !s) {
      Diagnostic d = s.error();
      d.message = "finite difference at " + leaf.name + " - h: " + d.message;
      return d;
    }
    slot[leaf.name] = base;
    if (leaf.op == Op::Parameter && !env.params.count(leaf.name)) slot.erase(leaf.name);
    // (base + h) - (base - h) is the step actually taken after rounding.
    const double fd = (up - down) / ((base + h) - (base - h));
    report.finite_differences.emplace_back(leaf.name, fd);
    const double g = grad->gradients[k].second;
    const double diff = std::fabs(g - fd) / std::max({1.0, std::fabs(g), std::fabs(fd)});
    report.max_rel_diff = std::max(report.max_rel_diff, diff);
  }
  return report;
}

}  // namespace tc
