// The rows of option_table.h. Choice words are the IR's own spellings
// (ir/domain.h's to_string), checked against the enums by
// tests/options/option_table_test.cpp, so a new semantics cannot be
// accepted by one client and refused by another.
#include "options/option_table.h"

#include <array>
#include <cassert>

namespace tc::options {

namespace {

constexpr std::array<std::string_view, 2> kDtypes{"float64", "float32"};
constexpr std::array<std::string_view, 3> kSemantics{"exact", "relaxed", "hybrid"};
constexpr std::array<std::string_view, 1> kSurrogates{"sigmoid"};
constexpr std::array<std::string_view, 3> kPlans{"auto", "interpreter", "compiled"};

// Kept in OptionId order (option_spec indexes it).
const std::array<OptionSpec, 11> kTable{{
    {OptionId::Filename, "filename", OptionKind::Text, {}, 0, 0, false, "the file name errors are reported against"},
    {OptionId::Function, "function", OptionKind::Text, {}, 0, 0, false,
     "function to compile when the file defines several"},
    {OptionId::Inputs, "inputs", OptionKind::Domains, {}, 0, 0, false,
     "NAME=DOMAIN for a function parameter, e.g. a=int32:-128:127 (repeatable)"},
    {OptionId::Dtype, "dtype", OptionKind::Choice, kDtypes, 0, 0, true, "float64 (default) or float32"},
    {OptionId::Semantics, "semantics", OptionKind::Choice, kSemantics, 0, 0, false,
     "exact, relaxed or hybrid (replaces an artifact's root semantics)"},
    {OptionId::Surrogate, "surrogate", OptionKind::Choice, kSurrogates, 0, 0, false,
     "surrogate gradient policy: sigmoid"},
    {OptionId::Temperature, "temperature", OptionKind::Positive, {}, 0, 0, false,
     "relaxation temperature, finite and > 0"},
    {OptionId::MaxIterations, "max_iterations", OptionKind::Count, {}, 1, kMaxIterationBudget, true,
     "budget of expanded loop iterations (default: the file's compile directive, else 1024)"},
    {OptionId::MaxNodes, "max_nodes", OptionKind::Count, {}, 1, kMaxNodeBudget, true,
     "budget of circuit nodes (default: the file's compile directive, else 100000)"},
    {OptionId::UseInputDirectives, "use_input_directives", OptionKind::Flag, {}, 0, 0, false,
     "read parameters' domains from the file's `# tensorcode: input` lines"},
    {OptionId::Plan, "plan", OptionKind::Choice, kPlans, 0, 0, false,
     "how the cpu backend computes: auto (interpret, compile generated C in the background once it pays; "
     "default), interpreter, or compiled (compile before the first case)",
     OptionScope::Run},
}};

}  // namespace

std::span<const OptionSpec> option_table() { return kTable; }

const OptionSpec& option_spec(OptionId id) {
  const OptionSpec& spec = kTable[static_cast<std::size_t>(id)];
  assert(spec.id == id);
  return spec;
}

std::string spelled(const OptionSpec& spec, KeySpelling spelling) {
  std::string out;
  if (spelling == KeySpelling::Cli) out = "--";
  bool upper = false;
  for (char c : spec.name) {
    if (c != '_') {
      out += upper ? static_cast<char>(c - 'a' + 'A') : c;
      upper = false;
    } else if (spelling == KeySpelling::Snake) {
      out += '_';
    } else if (spelling == KeySpelling::Cli) {
      out += '-';
    } else {
      upper = true;
    }
  }
  return out;
}

std::vector<std::string> choice_words(const OptionSpec& spec) {
  return {spec.choices.begin(), spec.choices.end()};
}

std::string choices_text(const OptionSpec& spec) {
  std::string out;
  for (std::size_t i = 0; i < spec.choices.size(); ++i) {
    if (i > 0) out += i + 1 == spec.choices.size() ? " or " : ", ";
    out += spec.choices[i];
  }
  return out;
}

std::string range_text(const OptionSpec& spec) {
  return "an integer from " + std::to_string(spec.lo) + " to " + std::to_string(spec.hi);
}

}  // namespace tc::options
