#pragma once
/// The options several commands share, declared once: count options that
/// refuse negative, zero and out-of-range values at parse time (exit 2), the
/// --set/--param/--state lists and the -o output file.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "eval/evaluator.h"

namespace tc::cli {

/// A decimal integer in [min, max]. CLI11 would otherwise read "-1" into an
/// unsigned option as 2^64-1, which turned "--max-cases -1" into "no limit".
CLI::Validator count_range(std::uint64_t min, std::uint64_t max = UINT64_MAX);

/// A finite number; greater than `min` (strict) or at least `min`.
CLI::Validator finite_above(double min, bool strict);

/// Adds an unsigned count option checked by count_range(min).
template <class T>
CLI::Option* add_count_option(CLI::App& sub, const std::string& name, T& value, const std::string& description,
                              std::uint64_t min = 1) {
  return sub.add_option(name, value, description)->check(count_range(min))->type_name("N");
}

/// The NAME=VALUE lists of the commands that evaluate a program once.
struct AssignmentArgs {
  std::vector<std::string> sets, params, states;
  /// The lists as an Env (errors name the flag and the item).
  [[nodiscard]] Result<Env> env() const;
};

/// Which of the lists a command takes.
enum AssignmentFlags : unsigned { kSets = 1, kParams = 2, kStates = 4, kAllAssignments = 7 };

/// Adds --set, --param and --state (those named by `which`) to `sub`.
void add_assignment_options(CLI::App& sub, AssignmentArgs& args, unsigned which = kAllAssignments,
                            const std::string& param_description = {});

/// Refuses an empty path for an option that names a file to write.
const CLI::Validator& non_empty_path();

/// Adds -o/--output (with `alias` as the long name's alternative, e.g.
/// "--out") for a file written through write_output.
CLI::Option* add_output_option(CLI::App& sub, std::string& path, const std::string& description,
                               const std::string& names = "-o,--output");

}  // namespace tc::cli
