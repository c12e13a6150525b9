#pragma once
/// Value domains (contract section 1) and the program-wide enums.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace tc {

// One byte each: they sit in every IR node (Node::semantics, Node::surrogate,
// Domain::type), and a smaller node keeps a 100k-node circuit in cache.
enum class DomainType : std::uint8_t { Int32, Boolean, Float32, Float64 };
enum class Semantics : std::uint8_t { Exact, Relaxed, Hybrid };
enum class Dtype : std::uint8_t { Float64, Float32 };
enum class Surrogate : std::uint8_t { Sigmoid };

/// A domain. min/max are optional so an artifact's spelling round-trips; the
/// effective bounds fill in the type's full range.
struct Domain {
  DomainType type = DomainType::Float64;
  std::optional<double> min;
  std::optional<double> max;

  [[nodiscard]] double lo() const;  ///< effective lower bound
  [[nodiscard]] double hi() const;  ///< effective upper bound
  [[nodiscard]] bool is_integral() const { return type == DomainType::Int32 || type == DomainType::Boolean; }
  [[nodiscard]] bool is_floating() const { return !is_integral(); }
  /// Number of values for integral domains (hi - lo + 1), nullopt for floating ones.
  [[nodiscard]] std::optional<double> size() const;
  /// nullopt when `v` belongs to the domain, else a lowercase reason
  /// ("5.5 is not an integer", "300 is above the maximum 127", ...).
  [[nodiscard]] std::optional<std::string> check(double v) const;
  /// CLI spelling: "int32:-128:127", "bool", "float64", "float32:-1:1".
  [[nodiscard]] std::string to_string() const;

  static Domain int32(std::optional<double> lo = std::nullopt, std::optional<double> hi = std::nullopt);
  static Domain boolean();
  static Domain float32(std::optional<double> lo = std::nullopt, std::optional<double> hi = std::nullopt);
  static Domain float64(std::optional<double> lo = std::nullopt, std::optional<double> hi = std::nullopt);

  bool operator==(const Domain&) const = default;
};

/// Parses the CLI/IDE spelling of contract section 1. Errors say what is wrong.
Result<Domain> parse_domain(std::string_view text);

std::string_view to_string(DomainType t);  ///< artifact spelling: int32, boolean, float32, float64
std::string_view to_string(Semantics s);   ///< exact, relaxed, hybrid
std::string_view to_string(Dtype d);       ///< float64, float32
std::string_view to_string(Surrogate s);   ///< sigmoid
std::optional<DomainType> domain_type_from(std::string_view s);
std::optional<Semantics> semantics_from(std::string_view s);
std::optional<Dtype> dtype_from(std::string_view s);
std::optional<Surrogate> surrogate_from(std::string_view s);

}  // namespace tc
