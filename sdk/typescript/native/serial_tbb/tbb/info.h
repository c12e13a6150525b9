#pragma once
// Serial oneTBB stand-in for the WebAssembly build (see README.md).
namespace tbb::info {
inline int default_concurrency() { return 1; }
}  // namespace tbb::info
