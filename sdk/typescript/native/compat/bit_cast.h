#pragma once
// std::bit_cast for the WebAssembly build: the libc++ of Debian's
// Emscripten 3.1.6 lacks it (its clang 14 has the builtin), while the engine
// is C++20 and may use it. Force-included (-include) by ../CMakeLists.txt;
// a no-op wherever the library has its own.
#include <bit>
#include <type_traits>

#if !defined(__cpp_lib_bit_cast)
namespace std {
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif
