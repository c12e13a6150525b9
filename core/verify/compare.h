#pragma once
/// The agreement rule of contract section 5, shared by verify, the
/// replacement gate and the IDE's verification panel.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace tc {

/// What one side (circuit or reference) produced for one case.
struct Outcome {
  bool raised = false;
  std::string error;  ///< when raised: the evaluator's message or "ExceptionType: text"
  std::vector<std::pair<std::string, double>> outputs;  ///< when not raised: values by output name

  static Outcome failure(std::string message) { return Outcome{true, std::move(message), {}}; }
  bool operator==(const Outcome&) const = default;
};

/// Absolute and relative tolerance; both 0 means bit-for-bit equal values
/// (except that -0 and +0 agree).
struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

/// An error unless atol and rtol are both finite and not negative. verify()
/// and verified_replacement() call it, so no caller can skip it: an infinite
/// tolerance would accept any finite value.
Status check_tolerance(const Tolerance& tolerance);

/// |actual - expected| <= atol + rtol * |expected|. Non-finite values never agree.
bool within_tolerance(double actual, double expected, const Tolerance& tolerance);

/// A reference result that is NaN or infinite counts as raising (contract
/// section 5); returns the outcome with that rule applied.
Outcome normalize_reference(Outcome reference);

/// Agreement of one case: both sides raised, or neither did and they have the
/// same output names with every circuit value within tolerance of the
/// reference's value (matched by name; order does not matter).
/// `reference` must already be normalized.
bool outcomes_agree(const Outcome& circuit, const Outcome& reference, const Tolerance& tolerance);

/// The exception a raise node's failure names ("...: raised ValueError: text"
/// gives "ValueError"); empty for every other failure.
std::string_view raised_type(std::string_view error);

/// Whether two outcomes that both raised raised the same kind of error, as
/// verify counts agreement: a case the circuit fails through a raise node
/// agrees only with a reference raising that exception class ("ValueError"
/// or "ValueError: ..." from CPython, or a raise of it in another circuit);
/// any other checked failure (a division by zero) agrees with any exception.
bool same_exception(const Outcome& circuit, const Outcome& reference);

}  // namespace tc
