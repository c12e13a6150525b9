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

Result<NodeAdjoints> node_adjoints(const Program& program, const Env& env, const GradOptions& options) {
  GradOptions o = options;
  o.wrt = GradWrt::AllNodes;
  auto tape = GradientTape::create(program, o);
  if (!tape) return tape.error();
  auto run = tape->run(env);
  if (!run) return run.error();
  NodeAdjoints r;
  r.result = run->result;
  r.gradients = std::move(run->gradients);
  r.adjoint.assign(program.nodes.size(), 0.0);
  tape->node_adjoints(r.adjoint);
  return r;
}

}  // namespace tc
