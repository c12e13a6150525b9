#pragma once
/// The second opinion: the query Z3 is given, printed as SMT-LIB 2 and run
/// through the cvc5 binary (Debian's cvc5 1.0.3, a separate implementation
/// of the FloatingPoint theory), at the same time as Z3. Its verdict is
/// read, and on "sat" the values of the named input variables.
#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "prove/prove.h"

namespace tc::prove {

/// The query (a closed boolean term) as an SMT-LIB 2 script ending in
/// (check-sat), in the QF_BVFP logic, then (get-value (VARS)) when `vars`
/// is not empty.
std::string smtlib_script(const z3::expr& query, const std::vector<std::string>& vars = {});

struct Cvc5Run {
  SolverAnswer answer;
  /// On "sat": each variable's value as cvc5 printed it, read as a double
  /// (a bit-vector as a signed 32-bit integer, a float as its value).
  std::map<std::string, double> model;
};

/// Runs `command` (a cvc5 binary) on `script` with a limit of `timeout_s`
/// seconds; `cancel` stops it. The answer is "unsat", "sat", "unknown",
/// "timeout", "unavailable" (the command cannot be started), "cancelled" or
/// "error" (with detail).
Cvc5Run ask_cvc5(const std::string& command, const std::string& script, const std::vector<std::string>& vars,
                 double timeout_s, const std::atomic<bool>* cancel = nullptr);

/// Reads (get-value ...)'s answer for `vars` (exposed for tests).
std::map<std::string, double> read_cvc5_values(const std::string& text, const std::vector<std::string>& vars);

}  // namespace tc::prove
