#include "verify/cases.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <unordered_set>

#include "ir/artifact.h"

namespace tc {

namespace {

/// splitmix64: tiny, fast and identical on every platform (std distributions
/// are implementation-defined, so a fixed seed would not mean fixed cases).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t s_;
};

double clamp_to(const Domain& d, double v) { return std::min(std::max(v, d.lo()), d.hi()); }

double uniform_value(Rng& r, const Domain& d) {
  double lo = d.lo(), hi = d.hi(), u = r.unit();
  if (d.is_integral()) {
    double span = hi - lo + 1.0;  // at most 2^32: exact in binary64
    return std::min(lo + std::floor(u * span), hi);
  }
  double v = lo + (hi - lo) * u;
  if (!std::isfinite(v)) v = lo * (1.0 - u) + hi * u;  // hi - lo overflowed (the full finite range)
  return clamp_to(d, v);
}

/// Magnitudes spread evenly over binary exponents, so wide domains still
/// produce values near 1 and tiny fractions, not only huge ones.
double log_uniform_value(Rng& r, const Domain& d) {
  double lo = d.lo(), hi = d.hi();
  double top = std::max(std::fabs(lo), std::fabs(hi));
  if (top == 0.0) return 0.0;
  double emax = std::log2(top);
  double emin = d.is_integral() ? 0.0 : std::max(emax - 80.0, -60.0);
  if (emin > emax) emin = emax;
  double m = std::min(std::exp2(emin + (emax - emin) * r.unit()), top);
  if (d.is_integral()) m = std::floor(m);
  double v = (r.next() & 1) ? -m : m;
  if (v < lo || v > hi) v = -v;
  if (v < lo || v > hi) return uniform_value(r, d);
  return v;
}

double small_integer_value(Rng& r, const Domain& d) {
  double lo = std::max(std::ceil(d.lo()), -16.0), hi = std::min(std::floor(d.hi()), 16.0);
  if (lo > hi) return uniform_value(r, d);
  return std::min(lo + std::floor(r.unit() * (hi - lo + 1.0)), hi);
}

/// A 64-bit mixer (splitmix64's finaliser) for the keys of drawn cases.
std::uint64_t splitmix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// How many times sample_cases draws again a case it already has.
constexpr int kRedraws = 64;

double draw(Rng& r, const Domain& d) {
  if (d.type == DomainType::Boolean) return static_cast<double>(r.next() & 1);
  double v;
  switch (r.next() & 3) {
    case 0:
    case 1: v = uniform_value(r, d); break;
    case 2: v = log_uniform_value(r, d); break;
    default: v = small_integer_value(r, d); break;
  }
  if (d.type == DomainType::Float32) {
    double f = round_f32(v);
    if (f >= d.lo() && f <= d.hi()) v = f;  // keep the binary32 value unless rounding left the domain
  }
  return v;
}

}  // namespace

std::vector<CaseInput> program_inputs(const Program& program) {
  std::vector<CaseInput> out;
  for (NodeId id : program.nodes_of(Op::Input)) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    out.push_back({n.name, n.domain.value_or(Domain::float64())});
  }
  return out;
}

CaseSet CaseSet::enumerate(std::vector<CaseInput> inputs) {
  CaseSet s;
  // Recomputed with the overflow check: a count that wrapped would make an
  // "exhaustive" run of a handful of cases (the replace gate's old hole).
  auto count = enumerable_count(inputs, SIZE_MAX);
  TC_ASSERT(count.has_value());
  s.inputs_ = std::move(inputs);
  s.exhaustive_ = true;
  s.count_ = *count;
  return s;
}

CaseSet CaseSet::from_columns(std::vector<CaseInput> inputs, std::vector<std::vector<double>> columns,
                              std::size_t count) {
  TC_ASSERT(columns.size() == inputs.size());
  for (const auto& c : columns) TC_ASSERT(c.size() == count);
  CaseSet s;
  s.inputs_ = std::move(inputs);
  s.columns_ = std::move(columns);
  s.count_ = count;
  return s;
}

void CaseSet::fill(std::size_t begin, std::size_t n, std::vector<std::vector<double>>& columns) const {
  TC_ASSERT(begin + n <= count_);
  columns.resize(inputs_.size());
  for (auto& c : columns) c.resize(n);
  if (!exhaustive_) {
    for (std::size_t k = 0; k < inputs_.size(); ++k)
      std::copy_n(columns_[k].begin() + static_cast<std::ptrdiff_t>(begin), n, columns[k].begin());
    return;
  }
  // Mixed radix: the last input varies fastest.
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t index = begin + c;
    for (std::size_t k = inputs_.size(); k-- > 0;) {
      const Domain& d = inputs_[k].domain;
      auto size = static_cast<std::size_t>(*d.size());
      columns[k][c] = d.lo() + static_cast<double>(index % size);
      index /= size;
    }
  }
}

std::vector<double> CaseSet::at(std::size_t index) const {
  std::vector<std::vector<double>> cols;
  fill(index, 1, cols);
  std::vector<double> out;
  out.reserve(cols.size());
  for (const auto& c : cols) out.push_back(c[0]);
  return out;
}

std::optional<std::size_t> enumerable_count(const std::vector<CaseInput>& inputs, std::size_t limit) {
  // Exact integer arithmetic: every factor is at most 2^32 and the product
  // stops as soon as it passes `limit` (< 2^64), so 128 bits never overflow.
  // (A binary64 product equal to 2^64 once converted to a size_t of 0.)
  unsigned __int128 product = 1;
  for (const CaseInput& in : inputs) {
    if (!in.domain.is_integral()) return std::nullopt;
    auto size = in.domain.size();
    if (!size || !(*size >= 0) || *size > 0x1p33) return std::nullopt;
    product *= static_cast<unsigned __int128>(static_cast<std::uint64_t>(*size));
    if (product > limit) return std::nullopt;
  }
  return static_cast<std::size_t>(product);
}

std::vector<double> domain_special_values(const Domain& domain) {
  std::vector<double> v{domain.lo(), domain.hi()};
  if (domain.lo() <= 0.0 && 0.0 <= domain.hi()) v.push_back(0.0);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

CaseSet sample_cases(const std::vector<CaseInput>& inputs, std::size_t count, std::uint64_t seed) {
  std::vector<std::vector<double>> columns(inputs.size());
  for (auto& c : columns) c.reserve(count);
  std::vector<std::vector<double>> specials;
  double combos = 1.0;
  std::size_t widest = 0;
  for (const CaseInput& in : inputs) {
    specials.push_back(domain_special_values(in.domain));
    combos *= static_cast<double>(specials.back().size());
    widest = std::max(widest, specials.back().size());
  }
  std::size_t filled = 0;
  if (combos <= static_cast<double>(count) / 2.0) {
    // Every combination of ends and zero: catches corner interactions (a = max, b = 0).
    auto n = static_cast<std::size_t>(combos);
    for (; filled < n; ++filled) {
      std::size_t index = filled;
      for (std::size_t k = inputs.size(); k-- > 0;) {
        columns[k].push_back(specials[k][index % specials[k].size()]);
        index /= specials[k].size();
      }
    }
  } else {
    for (; filled < std::min(widest, count); ++filled)
      for (std::size_t k = 0; k < inputs.size(); ++k)
        columns[k].push_back(specials[k][filled % specials[k].size()]);
  }
  // A random case that repeats one already planned checks nothing new (on
  // int32:-1000000:1000000 the small-integer draws repeated a=5 90 times in
  // 10,000 cases, and a mismatch there was reported 90 times): each is drawn
  // again, a bounded number of times, so a domain with fewer values than
  // the samples still ends. Above kDistinctSampleLimit repeats are allowed
  // (the set of the cases drawn would be too large to keep).
  const bool distinct = count <= kDistinctSampleLimit && !inputs.empty();
  std::unordered_set<std::uint64_t> seen;
  auto case_key = [&](std::size_t row) {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (const auto& column : columns) {
      h ^= std::bit_cast<std::uint64_t>(column[row]);
      h = splitmix(h);
    }
    return h;
  };
  if (distinct) {
    seen.reserve(count);
    for (std::size_t row = 0; row < filled; ++row) seen.insert(case_key(row));
  }
  Rng rng(seed);
  for (; filled < count; ++filled)
    for (int attempt = 0;; ++attempt) {
      for (std::size_t k = 0; k < inputs.size(); ++k) columns[k].push_back(draw(rng, inputs[k].domain));
      if (!distinct || seen.insert(case_key(filled)).second || attempt == kRedraws) break;
      for (auto& column : columns) column.pop_back();
    }
  if (inputs.empty()) count = std::min<std::size_t>(count, 1);  // a program without inputs has one case
  return CaseSet::from_columns(inputs, std::move(columns), count);
}

Result<CaseSet> parse_cases_jsonl(std::string_view text, const std::vector<CaseInput>& inputs,
                                  const std::string& filename) {
  std::vector<std::vector<double>> columns(inputs.size());
  std::size_t count = 0;
  int line_no = 0;
  auto fail = [&](std::string message) {
    Diagnostic d = make_error(std::move(message), SourceLoc{line_no, 1});
    d.file = filename;
    return d;
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (line.size() > kMaxCaseLineBytes)
      return fail("the line is longer than " + std::to_string(kMaxCaseLineBytes) + " bytes (a case is one short object)");
    auto json = parse_json_limited(line, 4);
    if (!json) return fail(json.error().message);
    if (!json->is_object()) return fail("a case must be a json object of input values, e.g. {\"a\": 5}");
    for (const auto& item : json->items()) {  // no structured binding: clang 14 cannot capture one
      const std::string& key = item.key();
      bool known = std::any_of(inputs.begin(), inputs.end(), [&](const CaseInput& in) { return in.name == key; });
      if (!known) return fail("'" + quote_user(key) + "' is not an input of the program");
    }
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const CaseInput& in = inputs[k];
      auto it = json->find(in.name);
      if (it == json->end()) return fail("input '" + in.name + "' is missing");
      double v;
      if (it->is_boolean()) {
        v = it->get<bool>() ? 1.0 : 0.0;
      } else if (it->is_number()) {
        v = it->get<double>();
      } else {
        return fail("input '" + in.name + "' must be a number or true/false, got " + quote_user(it->dump()));
      }
      if (auto why = in.domain.check(v)) return fail("input '" + in.name + "': " + *why);
      columns[k].push_back(v);
    }
    ++count;
  }
  return CaseSet::from_columns(inputs, std::move(columns), count);
}

Result<CaseSet> plan_cases(const std::vector<CaseInput>& inputs, const CasePlanOptions& options) {
  if (options.supplied && options.supplied->inputs() != inputs)
    return make_error("internal: supplied cases were parsed for different inputs");
  if (enumerable_count(inputs, options.max_cases)) return CaseSet::enumerate(inputs);
  if (options.supplied) return *options.supplied;
  if (options.samples == 0) return make_error("the number of samples must be at least 1");
  if (options.samples > kMaxSamples)
    return make_error("the number of samples must be at most " + std::to_string(kMaxSamples) + ", not " +
                      std::to_string(options.samples));
  return sample_cases(inputs, options.samples, options.seed);
}

}  // namespace tc
