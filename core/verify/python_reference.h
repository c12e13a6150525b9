#pragma once
/// The default reference of contract section 5: Python source executed by a
/// real CPython (the build's Python3_EXECUTABLE, Debian's /usr/bin/python3),
/// with relu and sigmoid defined exactly as contract section 4 says.
///
/// The source never runs in the calling process. Each reference starts
/// worker processes (`python3 -I -S`: no environment variables, no user site,
/// no site-packages) running python_driver.py, which executes the source in a
/// fresh namespace and calls the chosen function with keyword arguments,
/// int32/bool inputs as Python int (bools as 0/1) and floating inputs as
/// float. A scalar return is "result", a tuple/list return is "result[0]" ...,
/// a dict return names its outputs. Any Python exception counts as raising.
/// print() and friends go nowhere and input() fails.
///
/// What the user's code cannot do to tensorcode: hang it (a case that runs
/// past max_seconds_per_case, and loading the module past the same budget,
/// gets the worker SIGKILLed), crash it (os._exit, os.abort, a segfault end
/// the worker only), exhaust its memory (the worker has an address-space
/// limit; a MemoryError ends the verification), or flood it (an exception
/// message over 64 KiB, or a reply over 64 MiB, ends it). Each of these ends
/// verify with one error naming the case; the reference cannot be used again
/// afterwards. Progress::cancelled() is polled while waiting.
///
/// verify() asks for one worker per core (VerifyOptions::threads) and hands
/// each a contiguous slice of every block, so the results keep case order.
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
  std::uint64_t max_memory_bytes = std::uint64_t(4) << 30;  ///< address-space limit of each worker process
  std::string python;                  ///< interpreter to run; empty: the one the build was configured with
};

/// The address-space limit a reference worker really gets for `requested`
/// bytes: the smaller of `requested` and the hard limit this process
/// inherited (`ulimit -v`, a batch scheduler), which a worker cannot raise.
/// Callers compare the two to tell the user the limit was lowered.
std::uint64_t reference_memory_limit(std::uint64_t requested);

/// False when this build has no CPython reference (TC_ENABLE_PYTHON=OFF) or
/// its interpreter is missing; `why` says which.
bool python_reference_available(std::string* why = nullptr);

/// The text of python_driver.py, the worker this reference runs, or "" in a
/// build without the python reference. Its relu and sigmoid are the
/// contract's definitions; the Python package takes its own from here, so
/// there is one copy of them.
const char* python_driver_source();

/// Starts a worker, executes the module there and picks the function. Errors: no Python, a
/// syntax error or an exception while loading (with line and column), no such
/// function, several functions and none chosen.
Result<std::unique_ptr<Reference>> make_python_reference(const PythonReferenceOptions& options);

/// make_python_reference + verify in one call, for clients such as the IDE:
/// checks `program` against the module described by `reference`.
Result<VerifyReport> verify_against_python(const Program& program, const PythonReferenceOptions& reference,
                                           const VerifyOptions& options = {});

}  // namespace tc
