#pragma once
#ifndef __EMSCRIPTEN__
#error "serial_tbb is the WebAssembly build's stand-in for oneTBB; native builds use oneTBB itself"
#endif
// Serial oneTBB stand-in for the WebAssembly build (see README.md): one
// thread, so one value.
namespace tbb {
template <class T>
class enumerable_thread_specific {
 public:
  T& local() { return value_; }
  T* begin() { return &value_; }
  T* end() { return &value_ + 1; }

 private:
  T value_{};
};
}  // namespace tbb
