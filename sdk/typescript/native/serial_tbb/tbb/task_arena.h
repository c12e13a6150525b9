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
// The one thread there is: slot 0 of per-thread tables (grad/batch_tape.cpp).
namespace this_task_arena {
inline int current_thread_index() { return 0; }
inline int max_concurrency() { return 1; }
}  // namespace this_task_arena
}  // namespace tbb
