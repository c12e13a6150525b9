#pragma once
/// The cases a verification runs (contract section 5): the full product of
/// finite integer/boolean domains when it is small enough, otherwise supplied
/// cases or cases sampled with a fixed seed.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ir/domain.h"
#include "ir/program.h"

namespace tc {

/// One input of the program under verification.
struct CaseInput {
  std::string name;
  Domain domain;
  bool operator==(const CaseInput&) const = default;
};

/// The program's inputs in ascending node id order (the evaluator's column order).
std::vector<CaseInput> program_inputs(const Program& program);

/// A set of cases over fixed inputs: either the product of integral domains
/// (generated on demand, the first input varying slowest) or an explicit list.
class CaseSet {
 public:
  CaseSet() = default;
  /// Every combination of the inputs' values; the caller checked enumerable_count().
  static CaseSet enumerate(std::vector<CaseInput> inputs);
  /// Explicit cases: columns[k][c] is input k of case c; every column has `count` values.
  static CaseSet from_columns(std::vector<CaseInput> inputs, std::vector<std::vector<double>> columns,
                              std::size_t count);

  [[nodiscard]] const std::vector<CaseInput>& inputs() const { return inputs_; }
  [[nodiscard]] bool exhaustive() const { return exhaustive_; }
  [[nodiscard]] std::size_t size() const { return count_; }

  /// Writes cases [begin, begin + n) into columns[k][0 .. n) (resized as needed).
  void fill(std::size_t begin, std::size_t n, std::vector<std::vector<double>>& columns) const;
  /// The values of one case, in input order.
  [[nodiscard]] std::vector<double> at(std::size_t index) const;

 private:
  std::vector<CaseInput> inputs_;
  bool exhaustive_ = false;
  std::size_t count_ = 0;
  std::vector<std::vector<double>> columns_;  ///< explicit cases only
};

/// Number of cases of the full product when every input is integral and the
/// product is at most `limit`; nullopt otherwise (a floating input, or too many).
std::optional<std::size_t> enumerable_count(const std::vector<CaseInput>& inputs, std::size_t limit);

/// The seed verify uses unless told otherwise, so two runs check the same cases.
inline constexpr std::uint64_t kDefaultVerifySeed = 0x74656e736f72ULL;  // "tensor"

/// The special values of a domain that sampling always includes: its ends
/// and zero when zero lies inside (deduplicated, ascending).
std::vector<double> domain_special_values(const Domain& domain);

/// Up to this many samples, sample_cases draws no case twice.
inline constexpr std::size_t kDistinctSampleLimit = 1'000'000;

/// `count` cases drawn deterministically from the domains with `seed`. The
/// first cases combine the special values (every combination when that fits
/// in half the samples, otherwise each special value at least once per input),
/// the rest are random: half uniform over the domain, a quarter log-uniform
/// magnitudes (small and large values of wide domains), a quarter small
/// integers near zero. float32 domains get binary32 values. Up to
/// kDistinctSampleLimit samples, a random case equal to one already planned
/// is drawn again (64 times at most, so a domain with fewer values than
/// `count` still ends, then with repeats).
CaseSet sample_cases(const std::vector<CaseInput>& inputs, std::size_t count, std::uint64_t seed = kDefaultVerifySeed);

/// The longest line of a cases file (a case is a flat object of numbers; a
/// longer line is refused before it is parsed).
inline constexpr std::size_t kMaxCaseLineBytes = std::size_t(1) << 20;

/// Parses a cases file: JSON Lines, one object of input values per line
/// (numbers, or true/false for 1/0); blank lines are skipped. Every input must
/// be given, no other key is allowed, and each value must lie in its domain.
/// Errors carry `filename` and the 1-based line.
Result<CaseSet> parse_cases_jsonl(std::string_view text, const std::vector<CaseInput>& inputs,
                                  const std::string& filename = "<cases>");

/// The most cases sample_cases draws (they are held in memory, 8 bytes per
/// input each).
inline constexpr std::size_t kMaxSamples = 100'000'000;

/// How verify chooses its cases.
struct CasePlanOptions {
  std::size_t max_cases = 100000;          ///< largest product that is enumerated
  std::size_t samples = 10000;             ///< cases drawn when nothing else applies
  std::uint64_t seed = kDefaultVerifySeed;
  const CaseSet* supplied = nullptr;       ///< user cases (--cases), already parsed
};

/// Contract section 5: enumerate when every input is integral and the product
/// is at most max_cases (supplied cases are then a subset and add nothing);
/// otherwise the supplied cases; otherwise `samples` sampled cases.
Result<CaseSet> plan_cases(const std::vector<CaseInput>& inputs, const CasePlanOptions& options);

}  // namespace tc
