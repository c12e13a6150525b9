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

}  // namespace tc
