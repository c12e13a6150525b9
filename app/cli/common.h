#pragma once
/// Helpers shared by the CLI commands: loading PROGRAM (artifact or Python),
/// NAME=VALUE lists, JSON output and error reporting.
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "command.h"
#include "eval/evaluator.h"
#include "frontend/compile.h"
#include "ir/program.h"
#include "options/binding_options.h"

namespace tc::cli {

/// Options every command that takes a PROGRAM accepts; the compile flags are
/// used only when PROGRAM is a .py file.
struct ProgramArgs {
  std::string path;
  std::vector<std::string> inputs;  ///< NAME=DOMAIN
  std::string function;
  std::string dtype;
  std::string semantics;
  std::string surrogate;
  std::optional<double> temperature;
  // Unset: the file's `# tensorcode: compile` directive, else the default (1024, 100000).
  std::optional<std::size_t> max_iterations;
  std::optional<std::size_t> max_nodes;
};

/// Adds PROGRAM (positional) and the compile flags to `sub`. With
/// `semantics_overrides` the --semantics/--temperature flags are documented as
/// overriding an artifact's root policy too.
void add_program_options(CLI::App& sub, ProgramArgs& args, bool with_positional = true);
/// The check core's option table gives a flag: a Choice's words, a
/// Positive's bound, a Count's range.
CLI::Option* checked_by_table(CLI::Option* o, options::OptionId id);
/// A flag for an option of core's table (e.g. --plan), spelled, described
/// and checked by its row.
CLI::Option* add_table_option(CLI::App& sub, options::OptionId id, std::string& value);

struct LoadedProgram {
  Program program;
  std::optional<std::string> source;  ///< the Python text when PROGRAM was .py
  CompileOptions compile_options;     ///< how it was compiled (for .py)
  Diagnostics warnings;
};

/// Loads an artifact or compiles Python source; applies --semantics/--temperature
/// as root overrides for artifacts. Errors are printed-ready diagnostics.
Result<LoadedProgram> load_program(const ProgramArgs& args);
/// load_program as every command starts: the error, or each warning, on
/// stderr named after PROGRAM where the diagnostic names no file; nullopt
/// after an error (the command then exits with kRejected).
std::optional<LoadedProgram> load_reported(const ProgramArgs& args);

/// Parses NAME=VALUE pairs (values are finite numbers, 'true'/'false' allowed).
Result<std::map<std::string, double, std::less<>>> parse_assignments(const std::vector<std::string>& items,
                                                                    const std::string& flag);

/// Builds an Env from the --set, --param and --state lists.
Result<Env> env_from_assignments(const std::vector<std::string>& sets, const std::vector<std::string>& params,
                                 const std::vector<std::string>& states);

/// `--threads N` (N >= 1): how many cores the command's per-case work may use
/// (the batched evaluator of run --cases and verify, fit's passes, verify's
/// reference workers). `threads` stays 0 when the flag is absent: every core.
/// Results never depend on it.
void add_threads_option(CLI::App& sub, unsigned& threads);

/// The compile flags read and checked by core's option layer (domains
/// parsed, budgets set); its for_source(text) applies the file's compile
/// directive under them (a flag given wins over the file).
Result<options::CompileRequest> compile_request_from(const ProgramArgs& args);

/// Prints a diagnostic to stderr in the contract's one-line form.
void report(const Diagnostic& d, const std::string& file = {});
/// Prints warnings (compile warnings and the like) to stderr.
void report_warnings(const Diagnostics& ds, const std::string& file = {});

/// Prints "FILE:LINE: error: MESSAGE" (a JSON Lines input's failing line) as
/// one escaped, bounded line, like report().
void report_line(const std::string& file, std::size_t line, const std::string& message);

/// Reads the next line of a JSON Lines input without its '\n' (a last line
/// without one still counts). A line longer than `max_bytes` is not read
/// into memory whole: the answer is TooLong.
enum class LineRead { Line, End, TooLong };
LineRead read_line_bounded(std::istream& in, std::string& line, std::size_t max_bytes);

/// JSON number for output: integral values print without a fraction.
nlohmann::ordered_json number(double v);
/// Prints `j` on one line to stdout.
void print_json(const nlohmann::ordered_json& j);

/// Writes `text` to `path` atomically, or to stdout when `path` is empty.
/// Returns an exit status, reporting any error.
int write_output(const std::string& path, const std::string& text);

}  // namespace tc::cli
