#pragma once
#ifndef __EMSCRIPTEN__
#error "serial_tbb is the WebAssembly build's stand-in for oneTBB; native builds use oneTBB itself"
#endif
// Serial oneTBB stand-in for the WebAssembly build (see README.md).
namespace tbb::info {
inline int default_concurrency() { return 1; }
}  // namespace tbb::info
