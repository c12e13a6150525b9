#pragma once
/// Every node's adjoint, d(output)/d(node), from one forward and one reverse
/// pass: what a debugger shows beside each node's value. Each node counts as
/// a source of derivatives, as if a differentiable parameter p_k were added
/// to it (node k + p_k at p_k = 0), so the hybrid rules apply at every
/// decision exactly as they would for such a parameter; the values are those
/// of the ordinary forward pass.
#include <string>
#include <utility>
#include <vector>

#include "grad/gradients.h"

namespace tc {

struct NodeAdjoints {
  double result = 0.0;          ///< the differentiated output's value
  std::vector<double> adjoint;  ///< per node id; NaN outside the output's cone
  /// d(output)/d(leaf) for the differentiable inputs and parameters, node order.
  std::vector<std::pair<std::string, double>> gradients;
};

/// `options.output` picks the output (GradOptions rules); options.wrt is
/// ignored (GradWrt::AllNodes). Errors are the gradient API's, naming the
/// node: a failing forward, a hybrid decision whose unchosen branch is
/// undefined, a forward-only binding on a derivative path.
/// `forward_values`, when given, receives GradientTape::forward_values() of
/// the pass, also when it fails: the values a debugger can show for nodes a
/// lazy run skipped (the untaken branches the hybrid rules read).
Result<NodeAdjoints> node_adjoints(const Program& program, const Env& env, const GradOptions& options = {},
                                   std::vector<double>* forward_values = nullptr);

}  // namespace tc
