#pragma once
#ifndef __EMSCRIPTEN__
#error "serial_tbb is the WebAssembly build's stand-in for oneTBB; native builds use oneTBB itself"
#endif
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
