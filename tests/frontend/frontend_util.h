#pragma once
// Helpers shared by the frontend tests: reading corpus/rejection files and
// their `# key: value` headers into CompileOptions.
#include <string>
#include <vector>

#include "frontend/compile.h"

namespace tc::test {

std::string slurp(const std::string& path);
/// *.py file names (not paths) in `dir`, sorted.
std::vector<std::string> python_files(const std::string& dir);

/// A source file with its header: inputs, function, dtype, budgets and, for
/// rejection cases, `# expect: LINE:COL substring`.
struct CaseFile {
  std::string path;
  std::string source;
  CompileOptions options;
  int expect_line = 0;
  int expect_column = 0;
  std::string expect_message;
  std::string problem;  ///< a malformed header
};
CaseFile load_case(const std::string& path);

/// A compact, stable text form of a program for golden files: one line per
/// node (`%3 = gt %0 %1 @2:18`), then the outputs.
std::string disassemble(const Program& p);

/// Compiles a source string with the given inputs (NAME=DOMAIN items).
Result<CompileOutput> compile_text(const std::string& source, const std::vector<std::string>& inputs,
                                   const std::string& function = {});

/// Evaluates `p` on named inputs with the exact evaluator; outputs by name.
Result<std::vector<std::pair<std::string, double>>> evaluate(const Program& p,
                                                              const std::vector<std::pair<std::string, double>>& inputs);

}  // namespace tc::test
