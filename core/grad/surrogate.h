#pragma once
/// Surrogate policies: the smooth stand-ins for hard decisions.
///
/// A policy gives the relaxed form of an ordered comparison (a "step" of
/// z = (x - y) / T) and of equality (a "bump" of z), with their slopes. The
/// relaxed semantics evaluates these forms; the hybrid semantics keeps the
/// hard forward value and borrows only their slopes for decision arguments.
/// Policies live in a table keyed by the Surrogate enum (a switch without a
/// default), so adding a surrogate means adding its row here.
#include "ir/domain.h"

namespace tc {

struct SurrogatePolicy {
  Surrogate kind;
  /// Relaxed x > y (and x >= y) at temperature t.
  double (*greater)(double x, double y, double t);
  /// d/dz of the step at z = (x - y) / t; never overflows, 0 far in the tails.
  double (*step_slope)(double z);
  /// Relaxed x == y at temperature t (1 at x == y, falling off both ways).
  double (*equal)(double x, double y, double t);
  /// d/dz of log(bump(z)); the bump's slope is bump * this.
  double (*log_bump_slope)(double z);
};

/// The policy row of `s`.
const SurrogatePolicy& surrogate_policy(Surrogate s);

/// Derivative of the logistic function at x, without overflow: e/(1+e)^2
/// with e = exp(-|x|), so it is exactly 0 (never NaN) far in the tails.
double sigmoid_slope(double x);

}  // namespace tc
