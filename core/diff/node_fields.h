#pragma once
/// The comparison of two nodes' own fields that the matcher (identical
/// nodes) and the report (what changed) share, so both agree on "same".
#include "diff/diff.h"

namespace tc::diff_detail {

/// The NodeField bits of `x` and `y` that differ among op, name, value,
/// domain, coefficients, policy and differentiable; values and bounds
/// compare bitwise. Arguments, updates and source positions are not looked at.
unsigned own_field_changes(const Node& x, const Node& y);

}  // namespace tc::diff_detail
