#pragma once
#ifndef __EMSCRIPTEN__
#error "serial_tbb is the WebAssembly build's stand-in for oneTBB; native builds use oneTBB itself"
#endif
// Serial oneTBB stand-in for the WebAssembly build (see README.md): the body
// runs once over the whole range, on the calling thread.
#include "blocked_range.h"

namespace tbb {
template <class Range, class Body>
void parallel_for(const Range& range, const Body& body) {
  if (!range.empty()) body(range);
}
}  // namespace tbb
