#include "verify/compare.h"

#include <algorithm>
#include <cmath>

namespace tc {

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
