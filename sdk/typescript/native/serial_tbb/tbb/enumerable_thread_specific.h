#pragma once
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
