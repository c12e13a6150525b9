#pragma once
// Serial oneTBB stand-in for the WebAssembly build (see README.md).
namespace tbb {
class task_arena {
 public:
  explicit task_arena(int = 1) {}
  template <class F>
  auto execute(F&& f) -> decltype(f()) {
    return f();
  }
};
}  // namespace tbb
