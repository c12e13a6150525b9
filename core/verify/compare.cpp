#include "verify/compare.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/number_text.h"

namespace tc {

namespace {
std::string tolerance_text(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return shortest_number(v);
}
}  // namespace

Status check_tolerance(const Tolerance& tolerance) {
  for (auto [name, v] : {std::pair{"atol", tolerance.atol}, std::pair{"rtol", tolerance.rtol}}) {
    if (std::isfinite(v) && v >= 0) continue;
    return make_error(std::string("the tolerance ") + name + " is " + tolerance_text(v) +
                      ": atol and rtol must be finite and not negative");
  }
  return ok_status();
}

bool within_tolerance(double actual, double expected, const Tolerance& tolerance) {
  if (!std::isfinite(actual) || !std::isfinite(expected)) return false;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

Outcome normalize_reference(Outcome reference) {
  if (reference.raised) return reference;
  for (const auto& [name, value] : reference.outputs) {
    if (!std::isfinite(value)) {
      std::string what = std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
      return Outcome::failure("reference returned " + what + " for " + name + " (a non-finite result counts as raising)");
    }
  }
  return reference;
}

bool outcomes_agree(const Outcome& circuit, const Outcome& reference, const Tolerance& tolerance) {
  if (circuit.raised || reference.raised) return circuit.raised && reference.raised;
  if (circuit.outputs.size() != reference.outputs.size()) return false;
  for (const auto& output : circuit.outputs) {  // no structured binding: clang 14 cannot capture one
    auto it = std::find_if(reference.outputs.begin(), reference.outputs.end(),
                           [&](const auto& o) { return o.first == output.first; });
    if (it == reference.outputs.end()) return false;
    if (!within_tolerance(output.second, it->second, tolerance)) return false;
  }
  return true;
}

std::string_view raised_type(std::string_view error) {
  std::size_t start = 0;
  if (std::size_t at = error.find(": raised "); at != std::string_view::npos) start = at + 9;
  else if (error.starts_with("raised ")) start = 7;
  else return {};
  const std::size_t end = error.find(':', start);
  return error.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

bool same_exception(const Outcome& circuit, const Outcome& reference) {
  if (!circuit.raised || !reference.raised) return true;
  const std::string_view type = raised_type(circuit.error);
  if (type.empty()) return true;
  if (const std::string_view other = raised_type(reference.error); !other.empty()) return other == type;
  const std::string_view e = reference.error;
  return e.starts_with(type) && (e.size() == type.size() || e[type.size()] == ':');
}

}  // namespace tc
