#pragma once
/// verify (contract section 5): runs every case on the circuit, with the
/// batched checked evaluator, and on an independent reference, and reports
/// whether they agree.
///
///   auto inputs = program_inputs(program);
///   auto ref = make_python_reference({.source = text, .filename = "choose.py"});
///   VerifyOptions o;                       // max_cases 100000, atol = rtol = 0
///   auto report = verify(program, **ref, o);
///   report->passed, report->cases, report->exhaustive, report->mismatches
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/progress.h"
#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/program.h"
#include "verify/cases.h"
#include "verify/compare.h"

namespace tc {

/// The independent side of a verification. Implementations: CPython worker
/// processes running the source (python_reference.h), another circuit (make_program_reference) and
/// a C++ function (make_function_reference).
class Reference {
 public:
  virtual ~Reference() = default;
  /// For messages: "python function choose in choose.py".
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Called once before any case with the inputs the cases will carry; fails
  /// when the reference cannot take them (e.g. different parameter names).
  virtual Status bind(const std::vector<CaseInput>& inputs) = 0;
  /// Evaluates `count` cases (columns[k][c] is input k of case c) and appends
  /// one Outcome per case to `out`. A case that raises is an Outcome, not an
  /// error; an error means the reference itself could not run (it hung past
  /// its budget, was cancelled, or its machinery failed).
  virtual Status evaluate(const std::vector<std::vector<double>>& columns, std::size_t count,
                          std::vector<Outcome>& out, Progress* progress) = 0;
  /// Asks for up to `workers` cases to run at once (verify calls it before
  /// bind). References that run in one place ignore it; the Python reference
  /// starts that many worker processes. Results stay in case order.
  virtual Status set_workers(std::size_t /*workers*/) { return ok_status(); }
  /// How many cases the reference runs at once (verify sizes its blocks by it).
  [[nodiscard]] virtual std::size_t workers() const { return 1; }
};

/// Another circuit as the reference, run by the checked evaluator (used by
/// verified_replacement when the original has no Python source). Its inputs
/// must have the names of the verified program's inputs.
Result<std::unique_ptr<Reference>> make_program_reference(const Program& program, EvalOptions options = {},
                                                          Env fixed = {});

/// A C++ function as the reference: called once per case with the values in
/// input order; it returns the outputs by name, or Outcome::failure(...).
using ReferenceFunction = std::function<Outcome(const std::vector<double>& values)>;
std::unique_ptr<Reference> make_function_reference(ReferenceFunction function, std::string description);

struct VerifyOptions {
  std::size_t max_cases = 100000;      ///< enumerate integral domains up to this many cases
  std::size_t samples = 10000;         ///< cases drawn when a domain is floating or too large
  std::uint64_t seed = kDefaultVerifySeed;
  std::optional<CaseSet> cases;        ///< supplied cases (parse_cases_jsonl)
  Tolerance tolerance;                 ///< defaults atol = rtol = 0
  std::size_t max_reported = 10;       ///< mismatches kept in the report
  std::size_t block = 2048;            ///< cases per evaluator / reference batch
  bool require_exhaustive = false;     ///< fail instead of sampling (verified_replacement)
  EvalOptions eval;                    ///< bindings and policy overrides for the circuit
  Env fixed;                           ///< parameter values for the circuit (stored values by default)
  Progress* progress = nullptr;        ///< "cases" progress and cancellation
  /// Reference workers run at once (Reference::set_workers); 0: one per core,
  /// but at most one per 4096 cases (a worker process is not free to start).
  std::size_t threads = 0;
  /// Only the cases [first_case, end_case) of the planned case set run (for
  /// splitting one verification over several processes or ranks); the report
  /// then counts those cases and is exhaustive only when they are all of an
  /// enumerated set.
  std::size_t first_case = 0;
  std::size_t end_case = SIZE_MAX;
};

/// A case where the sides disagree.
struct Mismatch {
  std::size_t index = 0;  ///< the case's index in the planned case set
  std::vector<std::pair<std::string, double>> inputs;  ///< in input order
  Outcome circuit;
  Outcome reference;
};

struct VerifyReport {
  std::size_t cases = 0;             ///< cases that ran (and were compared)
  std::size_t planned_cases = 0;     ///< size of the whole planned case set
  bool exhaustive = false;           ///< every case of an enumerated set ran
  bool passed = false;
  std::vector<Mismatch> mismatches;  ///< the first max_reported, in case order
  std::size_t mismatch_count = 0;    ///< all of them
};

/// Runs the comparison. Errors: the reference cannot bind or run, the program
/// cannot be evaluated (a call without binding), cancellation ("cancelled"),
/// require_exhaustive with domains that cannot be enumerated, or a plan
/// without a single case (an empty cases file).
Result<VerifyReport> verify(const Program& program, Reference& reference, const VerifyOptions& options = {});

/// The report as contract section 5 prints it: {"cases", "exhaustive",
/// "passed", "mismatches": [{"inputs": {...}, "circuit": {...}, "reference":
/// {...}}]} where a side that raised is {"error": "MESSAGE"}.
nlohmann::ordered_json report_to_json(const VerifyReport& report);

// Pieces for splitting one verification between processes (the CLI's MPI
// layer): every process plans the same cases, runs a contiguous range of
// them (VerifyOptions::first_case / end_case), and the partial reports are
// merged in range order.

/// The cases verify() plans (enumerated, supplied or sampled), with the same
/// checks and errors.
Result<CaseSet> plan_verify_cases(const Program& program, const VerifyOptions& options);

/// verify() over cases already planned by plan_verify_cases with the same
/// options, so a caller that needed the plan (its size, to split it) does not
/// plan it a second time.
Result<VerifyReport> verify_planned(const Program& program, Reference& reference, const VerifyOptions& options,
                                    const CaseSet& cases);

/// Appends the report of the range that follows `into`'s: counts add up and
/// mismatches stay the first max_reported in case order. `exhaustive` is
/// the caller's to set: only it knows that the ranges covered the plan.
void merge_report(VerifyReport& into, VerifyReport next, std::size_t max_reported);
/// One side of a mismatch as JSON: outputs by name, or {"error": ...}.
nlohmann::ordered_json outcome_to_json(const Outcome& outcome);

}  // namespace tc
