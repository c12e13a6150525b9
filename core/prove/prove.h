#pragma once
/// Proofs over the whole input domain (docs/verification.md, "Proofs"):
/// two programs equivalent under the verify rule, or one program unable to
/// fail. The programs are encoded into SMT (encode.h), Z3 decides, cvc5 gives
/// a second opinion on every "unsat", and a counterexample is reported only
/// when the checked evaluator reproduces it.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "ir/program.h"
#include "verify/compare.h"

namespace tc::prove {

struct ProveOptions {
  double timeout_s = 60;  ///< the whole proof: the sweep at most half, then both solvers side by side the rest
  Tolerance tolerance;    ///< equivalence: |a - b| <= atol + rtol*|b| (a: the first program)
  /// The second opinion's command (cvc5 1.0.x); empty: none is asked.
  std::string cvc5 = "cvc5";
  /// Set (from any thread) to stop the proof: Z3 is interrupted, cvc5's
  /// process is killed, and the result is Verdict::Unknown with reason
  /// "cancelled" (not an error: the solvers' answers so far are kept, a
  /// stopped one reads "cancelled"). Checked about every 20 ms.
  const std::atomic<bool>* cancel = nullptr;
  /// Called in the proving thread, phase by phase and in this order:
  /// "sweep" (equivalence only: done of total nodes of the second program
  /// encoded, from 0 to total), "z3" (0 of 1 when it starts, 1 of 1 when it
  /// answers), "cvc5" (when it is asked: 0 of 1 while its answer is awaited,
  /// 1 of 1 when it came). Keep it cheap: the sweep calls it per node.
  std::function<void(std::string_view phase, int done, int total)> progress;
};

enum class Verdict { Equivalent, Different, CannotFail, CanFail, Unknown };
/// "equivalent", "different", "cannot-fail", "can-fail", "unknown".
const char* to_string(Verdict v);

/// One solver's answer: "unsat", "sat", "unknown", "timeout", "unavailable"
/// (not installed), "not run" (its answer was not needed), or "error".
struct SolverAnswer {
  std::string solver;
  std::string answer;
  double seconds = 0;
  std::string detail;  ///< why unknown/error/unavailable
};

/// Input values (by name, as `run --set NAME=VALUE` takes them) and what the
/// evaluator made of them.
struct Counterexample {
  std::vector<std::pair<std::string, double>> inputs;
  Outcome a, b;                 ///< equivalence: both programs' outcomes
  std::optional<NodeId> node;   ///< cannot-fail: the failing node
  std::string message;          ///< cannot-fail: the evaluator's error
};

struct ProveResult {
  Verdict verdict = Verdict::Unknown;
  std::optional<Counterexample> counterexample;
  std::vector<SolverAnswer> solvers;
  double seconds = 0;
  std::string reason;  ///< unknown: why ("cancelled" when ProveOptions::cancel stopped it)
  /// Equivalence: nodes of B the sweep proved equal to a node of A (and
  /// gave A's term) before the final miter.
  std::size_t merged = 0;
};

/// For every input in the domain, A and B both fail, or neither does and
/// every output agrees within the tolerance. A and B must have the same
/// inputs (names and domains) and outputs (names). Errors: a program the
/// encoder refuses, different signatures, an invalid tolerance.
Result<ProveResult> prove_equivalent(const Program& a, const Program& b, const ProveOptions& options = {});

/// For every input in the domain, the program runs without an error.
Result<ProveResult> prove_cannot_fail(const Program& a, const ProveOptions& options = {});

/// The one entry the clients call (the CLI's `prove`, the Python package's
/// tensorcode.program.prove): prove_equivalent(a, *b) when `b` is given,
/// else prove_cannot_fail(a).
Result<ProveResult> prove(const Program& a, const Program* b, const ProveOptions& options = {});

/// Whether the encoder takes `program` (no host call, no state, no op
/// without an exact encoding); the error is located at the refused node.
/// The prove functions refuse the same programs; a client that knows the
/// programs' files checks each first to name the file in the error.
Status encodable(const Program& program);

/// The JSON document of a result (docs/verification.md lists the fields).
/// Input values are numbers that read back to the same double; `run`
/// repeats the inputs as `--set NAME=VALUE` arguments in the shortest
/// round-trip text.
nlohmann::ordered_json to_json(const ProveResult& r);

}  // namespace tc::prove
