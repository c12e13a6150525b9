#pragma once
/// The Python frontend: compiles one bounded Python function to the circuit.
/// No CPython is involved; the lexer, parser and lowering are our own.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

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
  /// When true, parameters missing from `inputs` take their domain from the
  /// source's `# tensorcode: input NAME=DOMAIN` directives (the IDE's way of
  /// storing domains with a file). The CLI leaves it false: --input is required.
  bool use_input_directives = false;
};

struct CompileOutput {
  Program program;
  Diagnostics warnings;  ///< e.g. unused assignments
};

/// Compiles `source`. Errors carry the file, line and column (Diagnostic::format()).
Result<CompileOutput> compile_python(std::string_view source, const CompileOptions& options);

/// A function's name and parameter names, for the IDE's inputs panel and for
/// building a default CompileOptions without domains.
struct FunctionSignature {
  std::string name;
  std::vector<std::string> parameters;
  SourceLoc location;
};
/// Every top-level function of the module, in order (syntax errors are reported).
Result<std::vector<FunctionSignature>> list_functions(std::string_view source, const std::string& filename = "<source>");

/// Domains stored in the source as directive comments, one or more per line:
///   # tensorcode: input a=int32:-128:127 b=bool
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

}  // namespace tc
