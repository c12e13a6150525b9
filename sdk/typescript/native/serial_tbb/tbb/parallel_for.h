#pragma once
// Serial oneTBB stand-in for the WebAssembly build (see README.md): the body
// runs once over the whole range, on the calling thread.
#include "tbb/blocked_range.h"

namespace tbb {
template <class Range, class Body>
void parallel_for(const Range& range, const Body& body) {
  if (!range.empty()) body(range);
}
}  // namespace tbb
