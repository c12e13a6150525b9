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

}  // namespace tc
