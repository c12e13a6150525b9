#pragma once
/// Every option once (those of a compile, and those of a run: the plan): its name, what values it takes (choices or a
/// range), its default and its help line. The clients do not spell these
/// themselves: the CLI builds its flags, choice lists and range checks from
/// this table, and Python (snake_case keywords) and TypeScript (camelCase
/// keys) are checked by binding_options.h, which reads the same rows. A new
/// knob is a row here, its field in CompileOptions and one line per client.
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/compile.h"

namespace tc::options {

/// How an option's name is spelled: max_nodes (Python), maxNodes
/// (TypeScript) or --max-nodes (the CLI, and the key of a
/// `# tensorcode: compile` directive without the dashes).
enum class KeySpelling { Snake, Camel, Cli };

enum class OptionId : std::uint8_t {
  Filename,
  Function,
  Inputs,
  Dtype,
  Semantics,
  Surrogate,
  Temperature,
  MaxIterations,
  MaxNodes,
  UseInputDirectives,
  Plan,
};

/// What an option is given to: a compile (CompileOptions, the directive
/// merge), or a run of the compiled program (EvalOptions: run, run_batch).
enum class OptionScope : std::uint8_t { Compile, Run };

enum class OptionKind : std::uint8_t {
  Text,      ///< a string
  Domains,   ///< one domain per input name
  Choice,    ///< one of `choices`
  Positive,  ///< a finite number greater than 0
  Count,     ///< an integer from `lo` to `hi`
  Flag,      ///< true or false
};

/// The largest node budget: the lowering counts up to kArgumentsPerNode (8)
/// node arguments per node in a std::size_t, so a budget above SIZE_MAX / 8
/// would wrap that count (2^61 once made a 253-node loop "need more than 0
/// node arguments"). On a 32-bit target (the WebAssembly build) this is 2^29 - 1.
inline constexpr std::uint64_t kMaxNodeBudget = std::numeric_limits<std::size_t>::max() / 8;
/// The largest iteration budget: anything a std::size_t holds.
inline constexpr std::uint64_t kMaxIterationBudget = std::numeric_limits<std::size_t>::max();

struct OptionSpec {
  OptionId id;
  std::string_view name;  ///< snake_case; camelCase and --kebab-case follow from it
  OptionKind kind;
  std::span<const std::string_view> choices;  ///< Choice: the accepted words, the default first
  std::uint64_t lo = 0, hi = 0;               ///< Count: the accepted range
  /// The `# tensorcode: compile` directive may set it, and a value the
  /// caller gives wins over the file's.
  bool directive = false;
  std::string_view help;  ///< one line for --help, in the CLI's words
  OptionScope scope = OptionScope::Compile;
};

/// Every option, in the order the CLI lists them.
std::span<const OptionSpec> option_table();
const OptionSpec& option_spec(OptionId id);

/// The option's name as a client spells it: "max_nodes", "maxNodes", "--max-nodes".
std::string spelled(const OptionSpec& spec, KeySpelling spelling);
/// A Choice option's words, e.g. {"exact", "relaxed", "hybrid"} (the CLI's choice list).
std::vector<std::string> choice_words(const OptionSpec& spec);
/// The words as a sentence: "exact, relaxed or hybrid".
std::string choices_text(const OptionSpec& spec);
/// "an integer from 1 to 2305843009213693951": what a Count option takes.
std::string range_text(const OptionSpec& spec);

}  // namespace tc::options
