#pragma once
/// The Python frontend: compiles one bounded Python function to the circuit.
/// No CPython is involved; the lexer, parser and lowering are our own.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "frontend/hints.h"
#include "ir/program.h"

namespace tc {

/// The largest Python source compile_python accepts (callers that read a
/// file or a stream read at most this much and refuse more).
inline constexpr std::size_t kMaxSourceBytes = std::size_t(4) << 20;

struct CompileOptions {
  std::string filename = "<source>";  ///< used in diagnostics
  std::string function;               ///< required when the module defines several functions
  std::vector<std::pair<std::string, Domain>> inputs;  ///< one domain per function parameter
  Dtype dtype = Dtype::Float64;
  Semantics semantics = Semantics::Exact;
  Surrogate surrogate = Surrogate::Sigmoid;
  double temperature = 1.0;
  std::size_t max_iterations = 1024;  ///< total expanded loop iterations
  std::size_t max_nodes = 100000;     ///< circuit nodes
  /// Parameters missing from `inputs` take their domain from the source's
  /// `# tensorcode: input NAME=DOMAIN` directives (how the IDE stores domains
  /// with a file), so the CLI, the IDE and the Python package read a file the
  /// same way; an explicit entry of `inputs` wins. False ignores them.
  bool use_input_directives = true;
  /// Domain of a parameter that neither `inputs` nor a directive gives (the
  /// IDE's float64 over the full range); unset, such a parameter is an error.
  std::optional<Domain> default_domain;
  /// When `function` is empty or names no function, compile the first one
  /// instead of failing (the IDE compiles while the user types).
  bool first_function_by_default = false;
  /// How advice in messages names the options (frontend/hints.h): the CLI's
  /// flags by default, the Python package's arguments for tensorcode.program.
  HintSpelling hints = HintSpelling::Cli;
};

struct CompileOutput {
  Program program;
  Diagnostics warnings;  ///< e.g. unused assignments
};

/// A function's name and parameter names, for the IDE's inputs panel and for
/// building a default CompileOptions without domains.
struct FunctionSignature {
  std::string name;
  std::vector<std::string> parameters;
  SourceLoc location;
};

/// Where a parameter's domain came from.
enum class DomainSource { Option, Directive, Default };

struct ResolvedInput {
  std::string name;
  Domain domain;
  DomainSource source = DomainSource::Option;
};

/// Everything one parse of a module gives, also when compiling fails: the
/// functions it defines, the one chosen, its parameters with the domains used
/// (unresolved parameters are left out), and the compiled program or the error.
struct ModuleCompile {
  std::vector<FunctionSignature> functions;  ///< empty when the module does not parse
  std::string function;                      ///< empty when none could be chosen
  std::vector<ResolvedInput> inputs;
  Result<CompileOutput> output = make_error("not compiled");
};

/// Parses `source` once, picks the function, applies the input directives
/// and lowers it. Errors carry the file, line and column.
ModuleCompile compile_module(std::string_view source, const CompileOptions& options);

/// compile_module(...).output.
Result<CompileOutput> compile_python(std::string_view source, const CompileOptions& options);
/// Every top-level function of the module, in order (syntax errors are reported).
Result<std::vector<FunctionSignature>> list_functions(std::string_view source, const std::string& filename = "<source>");

/// Domains stored in the source as directive comments, one or more per line:
///   # tensorcode: input a=int32:-128:127 b=bool
/// Only comments count (the same text in a docstring is not a directive).
/// Returned in file order. A malformed directive (unknown keyword, bad
/// domain, a name given twice) is an error with its line and column.
Result<std::vector<std::pair<std::string, Domain>>> parse_input_directives(std::string_view source,
                                                                           const std::string& filename = "<source>");

/// Returns `source` with its input directives replaced by one directive line
/// per entry of `inputs` (in that order), placed where the first old
/// directive was, else at the top of the file (after a shebang or encoding
/// line). Everything else, line endings included, is kept byte for byte; an
/// empty `inputs` just removes the directives.
std::string set_input_directives(std::string_view source, const std::vector<std::pair<std::string, Domain>>& inputs);

/// Compile options stored in the source (the IDE's Compile Options), one line:
///   # tensorcode: compile dtype=float32 max-iterations=4096 max-nodes=200000
/// with the CLI's option names; keys left out keep their defaults.
struct CompileDirectives {
  std::optional<Dtype> dtype;
  std::optional<std::size_t> max_iterations;
  std::optional<std::size_t> max_nodes;
  friend bool operator==(const CompileDirectives&, const CompileDirectives&) = default;
};
/// The most a source's own compile directive may ask for: a file cannot
/// grant itself any budget (a loop of 10^12 iterations filled the memory
/// before a budget stopped it). The caller sets it; a budget the caller
/// gives the compile explicitly is not bound by it.
struct DirectiveCeiling {
  std::size_t max_iterations = 1000000;
  std::size_t max_nodes = 1000000;
};
/// The compile directives of `source`: only comments count (a directive
/// quoted in a docstring is text), each key at most once. A malformed one
/// (unknown key, bad value, a key given twice, a budget above `ceiling`) is
/// an error with its line and column.
Result<CompileDirectives> parse_compile_directives(std::string_view source, const std::string& filename = "<source>",
                                                   const DirectiveCeiling& ceiling = {});
/// `source` with its compile directives replaced by one line holding `d`
/// (none when `d` sets nothing), where the first one was, else at the top.
std::string set_compile_directives(std::string_view source, const CompileDirectives& d);
/// Sets the options `d` gives.
void apply_compile_directives(const CompileDirectives& d, CompileOptions& options);
/// How every client compiling a file reads its compile directive: `options`
/// with the settings of `source`'s `# tensorcode: compile` line, then those
/// the caller was given explicitly (`given`: a CLI flag, a keyword argument)
/// on top, so an explicit setting wins and the file's beats the default. A
/// malformed directive is an error naming its line and column (in `options.filename`).
Result<CompileOptions> with_compile_directives(std::string_view source, CompileOptions options,
                                               const CompileDirectives& given = {},
                                               const DirectiveCeiling& ceiling = {});

}  // namespace tc
