#pragma once
// The description's examples built with the C++ Builder, the one definition
// every test folder uses; tests/ir compares them with the bundled artifacts
// under resources/examples/.
#include "ir/builder.h"

namespace tc::examples {

/// choose(a) = 10 if a > 4 else 12, a in int32 [-128, 127].
Program choose();
/// Builder example: hybrid select(x > 4, weight * x, 0), weight = 0.
Program gated();
/// Event counter: count (int32 0..100) += event (int32 0..1); output count (old state).
Program counter();
/// Learned correction: the rule above included under "algorithm", plus correction * x.
Program learned_correction();

}  // namespace tc::examples
