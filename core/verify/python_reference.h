#pragma once
/// The default reference of contract section 5: Python source executed by an
/// embedded CPython (Debian's libpython3.11), with relu and sigmoid defined
/// exactly as contract section 4 says.
///
/// The interpreter starts once per process, isolated (no environment
/// variables, no user site, no site-packages), with the standard library of
/// the libpython it was built against. Each reference executes its source in
/// a fresh namespace; the chosen function is called with keyword arguments,
/// int32/bool inputs as Python int (bools as 0/1) and floating inputs as
/// float. A scalar return is "result", a tuple/list return is "result[0]" ...,
/// a dict return names its outputs. Any Python exception counts as raising.
/// print() and friends go nowhere and input() fails, so user code cannot
/// disturb the JSON on stdout or wait on stdin. Every case (and loading the
/// module) runs under a time budget watched by a second thread; past it the
/// reference is stopped and verification fails with an error naming the
/// case. Progress::cancelled() is polled before every case. This guards
/// against hangs, not against hostile code: the reference is the user's own
/// program.
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "verify/verify.h"

namespace tc {

struct PythonReferenceOptions {
  std::string source;                       ///< the module's text
  std::string filename = "<reference>";     ///< for diagnostics and tracebacks
  std::string function;                     ///< the function to call; empty: the module's only function
  std::string preferred_function;           ///< tried when `function` is empty and there are several
  double max_seconds_per_case = 10.0;  ///< wall-clock budget per case (and for loading the module)
};

/// False when this build has no embedded CPython (TC_ENABLE_PYTHON=OFF) or
/// the interpreter could not start; `why` says which.
bool python_reference_available(std::string* why = nullptr);

/// Executes the module and picks the function. Errors: no embedded Python, a
/// syntax error or an exception while loading (with line and column), no such
/// function, several functions and none chosen.
Result<std::unique_ptr<Reference>> make_python_reference(const PythonReferenceOptions& options);

/// make_python_reference + verify in one call, for clients such as the IDE:
/// checks `program` against the module described by `reference`.
Result<VerifyReport> verify_against_python(const Program& program, const PythonReferenceOptions& reference,
                                           const VerifyOptions& options = {});

}  // namespace tc
