#pragma once
#ifndef __EMSCRIPTEN__
#error "serial_tbb is the WebAssembly build's stand-in for oneTBB; native builds use oneTBB itself"
#endif
// Serial oneTBB stand-in for the WebAssembly build (see README.md).
#include <cstddef>

namespace tbb {
template <class Value>
class blocked_range {
 public:
  blocked_range(Value begin, Value end, std::size_t grainsize = 1) : begin_(begin), end_(end), grain_(grainsize) {}
  Value begin() const { return begin_; }
  Value end() const { return end_; }
  std::size_t grainsize() const { return grain_; }
  bool empty() const { return !(begin_ < end_); }

 private:
  Value begin_, end_;
  std::size_t grain_;
};
}  // namespace tbb
