// Placeholder until the Python frontend lands (issue 3): reports that the
// frontend is missing instead of failing to link the CLI.
#include "frontend/compile.h"

namespace tc {

Result<CompileOutput> compile_python(std::string_view, const CompileOptions& options) {
  Diagnostic d = make_error("the python frontend is not available in this build");
  d.file = options.filename;
  return d;
}

Result<std::vector<FunctionSignature>> list_functions(std::string_view, const std::string&) {
  return make_error("the python frontend is not available in this build");
}

}  // namespace tc
