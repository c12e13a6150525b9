#pragma once
// One switch for every golden file in the suite: TC_UPDATE_GOLDEN=1 (any
// value but empty or "0") rewrites the goldens instead of comparing.
namespace tc::testing {

/// True when TC_UPDATE_GOLDEN asks for the goldens to be rewritten.
bool update_golden();

}  // namespace tc::testing
