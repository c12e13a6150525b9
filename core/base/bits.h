#pragma once
/// The bit patterns of floats and doubles. std::bit_cast where the C++
/// library has it; memcpy otherwise (libc++ of Emscripten 3.1 lacks it).
#include <cstdint>
#include <cstring>
#if __has_include(<bit>)
#include <bit>
#endif

namespace tc {

inline std::uint32_t float_bits(float f) {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<std::uint32_t>(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

inline std::uint64_t double_bits(double d) {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<std::uint64_t>(d);
#else
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
#endif
}

}  // namespace tc
