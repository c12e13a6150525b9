#pragma once
/// Checked constant folding.
#include "base/result.h"
#include "ir/program.h"

namespace tc {

struct FoldOptions {
  /// Also resolve decisions whose inputs are constant: comparisons of two
  /// constants (exact and hybrid nodes), and select / gather /
  /// gather_one_hot with a constant condition, index or selectors (exact
  /// nodes: hybrid select evaluates both branches for its gradient).
  bool fold_decisions = true;
};

/// Replaces every node that some output or update needs and whose arguments
/// are all constants by a constant node holding the value the evaluator
/// would compute (binary32-rounded under dtype float32), keeping the node's
/// location and domain. A decided select / gather / gather_one_hot is
/// replaced by the chosen argument (unless it carries a domain that the
/// chosen value is not known to satisfy).
///
/// Folding never hides an error: a constant division by zero, a non-finite
/// result, an invalid constant index or selection and a folded value outside
/// the node's domain fail the pass with an error naming the node. Relaxed
/// nodes, calls, parameters and state are never folded. Arguments that only
/// the folded nodes used are left in place for eliminate_dead_code.
Result<Program> fold_constants(const Program& program, const FoldOptions& options = {});

}  // namespace tc
