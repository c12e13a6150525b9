#pragma once
/// SHA-256 (FIPS 180-4), for content that must not be mistaken for other
/// content: the compiled plan's cache keys and the check of each cached
/// shared object before it is loaded.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tc {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  /// The digest; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> finish();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buf_{};
  std::size_t used_ = 0;
  std::uint64_t bytes_ = 0;
};

/// The SHA-256 of `text` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view text);

}  // namespace tc
