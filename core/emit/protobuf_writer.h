#pragma once
/// A minimal Protocol Buffers encoder (proto2/proto3 wire format), enough
/// to write ONNX models without depending on libprotobuf: varints, fixed
/// 64-bit values, length-delimited bytes and nested messages. Fields are
/// written in the order the caller gives; readers accept any order.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tc::emit {

class ProtoWriter {
 public:
  enum Wire : std::uint32_t { Varint = 0, Fixed64 = 1, Delimited = 2, Fixed32 = 5 };

  /// An int32/int64/uint64/bool/enum field (negative values take 10 bytes,
  /// as protobuf encodes them).
  void varint(std::uint32_t field, std::int64_t v) {
    tag(field, Varint);
    raw_varint(static_cast<std::uint64_t>(v));
  }
  void fixed64(std::uint32_t field, std::uint64_t bits) {
    tag(field, Fixed64);
    for (int i = 0; i < 8; ++i) buf_ += static_cast<char>((bits >> (8 * i)) & 0xff);
  }
  /// A string, bytes or embedded message field.
  void bytes(std::uint32_t field, std::string_view data) {
    tag(field, Delimited);
    raw_varint(data.size());
    buf_.append(data.data(), data.size());
  }
  void message(std::uint32_t field, const ProtoWriter& sub) { bytes(field, sub.data()); }

  [[nodiscard]] const std::string& data() const { return buf_; }

  /// Little-endian bytes of a double (TensorProto.raw_data).
  static std::string raw_double(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::string s;
    for (int i = 0; i < 8; ++i) s += static_cast<char>((bits >> (8 * i)) & 0xff);
    return s;
  }
  static std::string raw_float(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::string s;
    for (int i = 0; i < 4; ++i) s += static_cast<char>((bits >> (8 * i)) & 0xff);
    return s;
  }
  static std::string raw_int64(std::int64_t v) {
    const auto bits = static_cast<std::uint64_t>(v);
    std::string s;
    for (int i = 0; i < 8; ++i) s += static_cast<char>((bits >> (8 * i)) & 0xff);
    return s;
  }

 private:
  void tag(std::uint32_t field, Wire w) { raw_varint((static_cast<std::uint64_t>(field) << 3) | w); }
  void raw_varint(std::uint64_t v) {
    while (v >= 0x80) {
      buf_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    buf_ += static_cast<char>(v);
  }
  std::string buf_;
};

}  // namespace tc::emit
