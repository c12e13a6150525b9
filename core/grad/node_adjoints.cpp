#include "grad/node_adjoints.h"

#include <algorithm>

#include "grad/tape_impl.h"

namespace tc {

void GradientTape::node_adjoints(std::span<double> per_node) const {
  const Impl& m = *impl_;
  TC_ASSERT(per_node.size() == m.adj.size());
  std::fill(per_node.begin(), per_node.end(), tape_detail::kNaN);
  for (NodeId id : m.order) {
    const auto i = static_cast<std::size_t>(id);
    per_node[i] = m.reached[i] ? m.adj[i] : 0.0;
  }
}

void GradientTape::forward_values(std::span<double> per_node) const {
  const Impl& m = *impl_;
  TC_ASSERT(per_node.size() == m.adj.size());
  std::fill(per_node.begin(), per_node.end(), tape_detail::kNaN);
  if (!m.forwarded) return;
  for (NodeId id : m.order) {
    const auto i = static_cast<std::size_t>(id);
    if (!m.fail[i]) per_node[i] = m.val[i];
  }
}

Result<NodeAdjoints> node_adjoints(const Program& program, const Env& env, const GradOptions& options,
                                   std::vector<double>* forward_values) {
  GradOptions o = options;
  o.wrt = GradWrt::AllNodes;
  if (forward_values) forward_values->assign(program.nodes.size(), tape_detail::kNaN);
  auto tape = GradientTape::create(program, o);
  if (!tape) return tape.error();
  auto run = tape->run(env);
  // The forward values are kept even when the derivative fails (a hybrid
  // jump term needing an undefined branch): they are still right.
  if (forward_values) tape->forward_values(*forward_values);
  if (!run) return run.error();
  NodeAdjoints r;
  r.result = run->result;
  r.gradients = std::move(run->gradients);
  r.adjoint.assign(program.nodes.size(), 0.0);
  tape->node_adjoints(r.adjoint);
  return r;
}

}  // namespace tc
