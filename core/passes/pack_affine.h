#pragma once
/// Packing of multiply-add chains into `affine` / `sparse_affine` nodes.
#include <cstddef>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

struct PackOptions {
  /// Emit sparse_affine for long chains that are mostly zero coefficients
  /// (only where dropping the zero terms is provably bit-identical).
  bool sparse = true;
  /// A chain needs at least this many terms to become sparse_affine.
  std::size_t sparse_min_terms = 4;
};

/// Rewrites left-deep chains such as ((c0*x0 + c1*x1) - c2*x2) + b, whose
/// additions follow affine's accumulation order, into one affine node with
/// the same rounding points, so results stay bit-identical: no
/// reassociation, no fused multiply-add. Only rewrites that are exact in
/// IEEE arithmetic are used: a + b == b + a, c*x == x*c, a - t == a + (-t),
/// -(c*x) == (-c)*x, 1*x == x. A chain stops at any node that is used
/// elsewhere (it stays and enters the chain as a term with coefficient 1),
/// carries a domain, has relaxed semantics or another include policy. A
/// chain is packed when it absorbed at least one multiplication by a
/// constant and has two terms (or a term and a bias). The affine node keeps
/// the root's id position, location, domain and policy. Absorbed nodes are
/// left unused for eliminate_dead_code. Validates before and after.
Result<Program> pack_affine(const Program& program, const PackOptions& options = {});

}  // namespace tc
