#pragma once
// Programs shared by the runtime tests, built with the C++ Builder.
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/program.h"
#include "runtime/runtime.h"

namespace tc::testing {

/// The description's counter: event in int32 0..1, state count = 0 in int32
/// 0..max_count, update count + event, output result = count (the old state).
Program counter_program(int max_count = 100);

/// Two states updated together: `total` (int32 0..1000) gains `event`
/// (int32 0..9) every step and `guard` (int32 0..guard_max) gains 1, so the
/// guard's update fails at step guard_max + 1 while the total's would
/// succeed. Outputs: total, guard (old values).
Program two_state_program(int guard_max);

/// A program whose update divides by its input: acc' = acc + 12 / d,
/// acc in float64 -1e6..1e6, d in int32 -3..3; output result = acc.
Program divide_program();

/// A program with selects for trace tests: x in int32 -5..5, state s in
/// int32 -1000..1000 (initial 0):
///   inner = select(x > 3, s + 2*x, s + x)   (only evaluated when x > 0)
///   y     = select(x > 0, inner, s - 1)
///   spare = select(x < 0, 1, 2)             (needed by nothing: never evaluated)
/// update s = y; outputs: result = y, old = s.
Program branching_program();

/// Unwraps a Result in a test (fails the test on error).
template <class T>
T must(Result<T> r) {
  if (!r.ok()) throw std::runtime_error("unexpected error: " + r.error().message);
  return std::move(r).value();
}

}  // namespace tc::testing
