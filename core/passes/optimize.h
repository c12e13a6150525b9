#pragma once
/// The optimization pipeline behind `tensorcode optimize`.
#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "ir/program.h"
#include "passes/fold_constants.h"
#include "passes/pack_affine.h"

namespace tc {

struct OptimizeOptions {
  bool fold = true;
  bool pack = true;
  FoldOptions fold_options;
  PackOptions pack_options;
};

struct OptimizeStats {
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  /// (pass name, node count after it), in pipeline order.
  std::vector<std::pair<std::string, std::size_t>> after_pass;
};

struct Optimized {
  Program program;
  OptimizeStats stats;
};

/// dead-code elimination, constant folding, dead-code elimination, affine
/// packing, dead-code elimination; each pass validates the IR before and
/// after. The result computes bit-identical outputs, state updates and
/// errors for every input under the program's own semantics and dtype (see
/// docs/passes.md for what changes when those are overridden at run time).
Result<Optimized> optimize(const Program& program, const OptimizeOptions& options = {});

}  // namespace tc
