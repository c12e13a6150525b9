#include "ir/domain.h"

#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <vector>

namespace tc {

namespace {

constexpr double kInt32Min = -2147483648.0;
constexpr double kInt32Max = 2147483647.0;

std::string num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e16) {
    return std::to_string(static_cast<long long>(v));
  }
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

bool parse_number(std::string_view s, double& out) {
  if (s.empty()) return false;
  std::string tmp(s);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(tmp.c_str(), &end);
  if (end != tmp.c_str() + tmp.size()) return false;
  return std::isfinite(out);
}

}  // namespace

double Domain::lo() const {
  if (min) return *min;
  switch (type) {
    case DomainType::Int32: return kInt32Min;
    case DomainType::Boolean: return 0.0;
    case DomainType::Float32: return -static_cast<double>(FLT_MAX);
    case DomainType::Float64: return -DBL_MAX;
  }
  return -DBL_MAX;
}

double Domain::hi() const {
  if (max) return *max;
  switch (type) {
    case DomainType::Int32: return kInt32Max;
    case DomainType::Boolean: return 1.0;
    case DomainType::Float32: return static_cast<double>(FLT_MAX);
    case DomainType::Float64: return DBL_MAX;
  }
  return DBL_MAX;
}

std::optional<double> Domain::size() const {
  if (!is_integral()) return std::nullopt;
  return hi() - lo() + 1.0;
}

std::optional<std::string> Domain::check(double v) const {
  if (!std::isfinite(v)) return std::string(std::isnan(v) ? "nan" : "an infinite value") + " is not allowed";
  if (is_integral() && v != std::floor(v)) {
    return num(v) + " is not an integer (" + std::string(tc::to_string(type)) + " domain)";
  }
  if (v < lo()) return num(v) + " is below the minimum " + num(lo());
  if (v > hi()) return num(v) + " is above the maximum " + num(hi());
  return std::nullopt;
}

std::string Domain::to_string() const {
  std::string out = type == DomainType::Boolean ? "bool" : std::string(tc::to_string(type));
  if (type != DomainType::Boolean && (min || max)) out += ":" + num(lo()) + ":" + num(hi());
  return out;
}

Domain Domain::int32(std::optional<double> lo, std::optional<double> hi) { return {DomainType::Int32, lo, hi}; }
Domain Domain::boolean() { return {DomainType::Boolean, std::nullopt, std::nullopt}; }
Domain Domain::float32(std::optional<double> lo, std::optional<double> hi) { return {DomainType::Float32, lo, hi}; }
Domain Domain::float64(std::optional<double> lo, std::optional<double> hi) { return {DomainType::Float64, lo, hi}; }

Result<Domain> parse_domain(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  std::string_view type = parts[0];
  Domain d;
  if (type == "bool" || type == "boolean") {
    if (parts.size() != 1) return make_error("domain '" + std::string(text) + "': bool takes no range");
    return Domain::boolean();
  }
  auto t = domain_type_from(type);
  if (!t) {
    return make_error("unknown domain type '" + std::string(type) +
                      "' (expected int32, bool, float32 or float64, e.g. int32:-128:127)");
  }
  d.type = *t;
  if (parts.size() == 1) return d;
  if (parts.size() != 3) {
    return make_error("domain '" + std::string(text) + "' must be TYPE or TYPE:MIN:MAX");
  }
  double lo = 0, hi = 0;
  if (!parse_number(parts[1], lo)) return make_error("domain '" + std::string(text) + "': minimum is not a finite number");
  if (!parse_number(parts[2], hi)) return make_error("domain '" + std::string(text) + "': maximum is not a finite number");
  if (lo > hi) return make_error("domain '" + std::string(text) + "': minimum is above maximum");
  Domain full{d.type, std::nullopt, std::nullopt};
  if (lo < full.lo() || hi > full.hi()) {
    return make_error("domain '" + std::string(text) + "': range exceeds what " + std::string(tc::to_string(d.type)) +
                      " can represent");
  }
  if (d.is_integral() && (lo != std::floor(lo) || hi != std::floor(hi))) {
    return make_error("domain '" + std::string(text) + "': int32 bounds must be integers");
  }
  d.min = lo;
  d.max = hi;
  return d;
}

std::string_view to_string(DomainType t) {
  switch (t) {
    case DomainType::Int32: return "int32";
    case DomainType::Boolean: return "boolean";
    case DomainType::Float32: return "float32";
    case DomainType::Float64: return "float64";
  }
  return "float64";
}
std::string_view to_string(Semantics s) {
  switch (s) {
    case Semantics::Exact: return "exact";
    case Semantics::Relaxed: return "relaxed";
    case Semantics::Hybrid: return "hybrid";
  }
  return "exact";
}
std::string_view to_string(Dtype d) {
  switch (d) {
    case Dtype::Float64: return "float64";
    case Dtype::Float32: return "float32";
  }
  return "float64";
}
std::string_view to_string(Surrogate s) {
  switch (s) {
    case Surrogate::Sigmoid: return "sigmoid";
  }
  return "sigmoid";
}
std::optional<DomainType> domain_type_from(std::string_view s) {
  if (s == "int32") return DomainType::Int32;
  if (s == "boolean") return DomainType::Boolean;
  if (s == "float32") return DomainType::Float32;
  if (s == "float64") return DomainType::Float64;
  return std::nullopt;
}
std::optional<Semantics> semantics_from(std::string_view s) {
  if (s == "exact") return Semantics::Exact;
  if (s == "relaxed") return Semantics::Relaxed;
  if (s == "hybrid") return Semantics::Hybrid;
  return std::nullopt;
}
std::optional<Dtype> dtype_from(std::string_view s) {
  if (s == "float64") return Dtype::Float64;
  if (s == "float32") return Dtype::Float32;
  return std::nullopt;
}
std::optional<Surrogate> surrogate_from(std::string_view s) {
  if (s == "sigmoid") return Surrogate::Sigmoid;
  return std::nullopt;
}

}  // namespace tc
