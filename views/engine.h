#pragma once
// The IDE's one doorway into the engine. Everything here is plain C++ over
// core (no widgets), runs on the worker thread, and returns values that the
// GUI thread takes over; views never call core directly for heavy work.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/progress.h"
#include "eval/evaluator.h"
#include "frontend/compile.h"
#include "ir/printer.h"
#include "session/program_session.h"
#include "ir/program.h"
#include "verify/compare.h"

namespace tc {
namespace views {

/// One function parameter as the inputs panel shows it.
struct InputSpec {
  std::string name;
  Domain domain = Domain::float64();
  bool from_directive = false;  ///< the domain was written in the file
};

/// Input-domain directives stored in a .py file (`# tensorcode: input NAME=DOMAIN`,
/// the frontend's format; see docs/ide.md).
struct Directives {
  std::vector<std::pair<std::string, Domain>> domains;  ///< per parameter, file order
  Diagnostics problems;                                 ///< a malformed directive
};
Directives parse_directives(const std::string& source);
/// `source` with its directives replaced by those of the inputs marked from_directive.
std::string write_directives(const std::string& source, const std::vector<InputSpec>& inputs);

struct CompileResult {
  std::shared_ptr<const Program> program;  ///< null when compilation failed
  Diagnostics diagnostics;                 ///< errors and warnings, source order
  std::vector<FunctionSignature> functions;
  std::string function;           ///< the compiled function
  std::vector<InputSpec> inputs;  ///< every parameter with its effective domain
  double milliseconds = 0.0;
};
/// Compiles with the source's compile directives (dtype, budgets; see
/// CompileOptionsDialog) and advice in the IDE's words; `dtype`, when given,
/// overrides the directive's (the Verify panel's own setting).
CompileResult compile_source(const std::string& source, const std::string& filename, const std::string& function,
                             std::optional<Dtype> dtype = std::nullopt);

/// A program loaded from an artifact file (read-only in the IDE).
Result<std::shared_ptr<const Program>> load_artifact_file(const std::string& path);

/// Schedule layer of every node (leaves 0, else 1 + the deepest argument).
std::vector<int> schedule_layers(const Program& program);

/// The circuit's inputs for a case.
using Case = std::map<std::string, double, std::less<>>;

struct RunResult {
  bool ok = false;
  std::optional<Diagnostic> error;
  CaseTrace trace;
  std::vector<double> outputs;
};
/// One case with a per-node trace under `semantics` at `temperature`, by the
/// session's evaluator for that policy (kept between runs of one program).
RunResult run_case(ProgramSession& session, const Case& inputs, Semantics semantics, double temperature,
                   const std::map<std::string, double, std::less<>>& state = {}, const Case& params = {});

/// Fills the values a lazy evaluation left out but that are known without
/// evaluating: constants (their value) and parameters (the value of `params`,
/// else the stored one), so no panel says "not computed" for them.
void fill_known_values(const Program& program, const Case& params, std::vector<double>& values);

/// d(output)/d(node) for every node (the adjoints of one backward pass).
struct NodeGradients {
  bool available = false;  ///< false when per-node adjoints were not computed (too large)
  bool ok = false;
  std::optional<Diagnostic> error;
  std::vector<double> adjoint;  ///< per node; NaN where unknown
  std::map<std::string, double> inputs;  ///< gradients reported for differentiable inputs/parameters
  /// Per node, the value of the gradient's forward pass (core's
  /// GradientTape::forward_values), kept when the derivative fails: it holds
  /// the untaken branches a lazy run skips. NaN where undefined or outside the cone.
  std::vector<double> forward;
  /// A hybrid derivative that needs an undefined unchosen value: the select
  /// whose jump term needs it and the node that failed (else -1).
  NodeId failed_select = -1;
  NodeId failed_node = -1;
};
NodeGradients node_gradients(const Program& program, const Case& inputs, std::size_t output, Semantics semantics,
                             double temperature, const Case& params = {}, const Case& state = {});

/// Named input cases kept beside a file (FILE.cases.json): {"current": NAME,
/// "cases": [{"name": NAME, "inputs": {...}, "parameters": {...}}]}.
struct NamedCase {
  std::string name;
  Case inputs;
  Case params;
};
struct CaseBook {
  std::vector<NamedCase> cases;
  std::size_t current = 0;
};
Result<CaseBook> parse_case_book(const std::string& text);
std::string case_book_json(const CaseBook& book);

/// Interval analysis and warnings.
struct Analysis {
  bool available = false;
  std::vector<std::pair<double, double>> intervals;  ///< per node; +-inf for unbounded
  std::vector<std::pair<NodeId, std::string>> warnings;
};
/// Intervals and warnings of `program`, with `params` (by name) in place of
/// the stored parameter values: the ones on screen.
Analysis analyze_program(const ProgramSession& session, const Case& params = {});

/// The IR text view's disassembly: one line per node, plus the map both ways.
struct Disassembly {
  std::string text;
  int first_node_line = 0;  ///< 0-based line of node 0
};
/// The listing of core's IR printer (ir/printer.h), which also gives
/// node_text() and to_dot() (the CLI's `info --ir` and `info --dot`).
Disassembly disassemble(const Program& program, const std::vector<int>& layers);

/// Event replay for the timeline, through the runtime (transactional steps).
struct StepRecord {
  int line = 0;  ///< 1-based line of the event file
  Case inputs;
  std::vector<double> outputs;  ///< the event's outputs (computed from the old state)
  std::vector<double> state;    ///< state after the step, Replay::state_names order
  std::vector<double> values;   ///< per node values of the step (empty when the program is too large)
};
struct Replay {
  std::vector<std::string> state_names;  ///< the runtime's state order (ascending node id)
  std::vector<double> initial_state;     ///< before the first event
  std::uint64_t base_steps = 0;          ///< steps consumed before the first event (restored snapshot)
  std::uint64_t max_steps = 0;
  std::vector<StepRecord> steps;
  std::optional<Diagnostic> error;  ///< the failing event, if any (replay stops there)
};
/// Replays from the program's initial state, or from `snapshot_text` when not empty.
/// The first `skip_events` events of the log are taken as already consumed
/// (a snapshot taken at that step of the same log): they are not dispatched.
Replay replay_events(const Program& program, const std::string& snapshot_text, const std::string& events_text,
                     const std::string& events_name, Progress* progress, std::size_t skip_events = 0);

/// A point of a replay to snapshot: the committed state (Replay::state_names
/// order) after `steps` events, within a budget of `max_steps`.
struct SnapshotPoint {
  std::vector<double> state;
  std::uint64_t steps = 0;
  std::uint64_t max_steps = 0;
};
/// The snapshot text (contract section 3) at `at`, written by core's Runtime;
/// the program's initial state when `at` is empty.
Result<std::string> snapshot_text(const Program& program, const std::optional<SnapshotPoint>& at);
/// A snapshot checked by the runtime: its program and the steps consumed when it was taken.
struct SnapshotInfo {
  std::shared_ptr<const Program> program;
  std::uint64_t steps = 0;
};
Result<SnapshotInfo> snapshot_info(const std::string& text);

/// Verification over the inputs' domains (exhaustive for small integer domains).
struct VerifyMismatch {
  Case inputs;
  std::string circuit;
  std::string reference;
  std::string difference;  ///< circuit - reference per output, or which side raised
};
/// What the Verify panel sets (the CLI's verify options).
struct VerifySettings {
  std::string reference_path;      ///< a Python file as the reference; empty: the source itself
  std::string reference_function;  ///< its function (empty: its only one, or the one named like the program's)
  double atol = 0.0;
  double rtol = 0.0;
  Dtype dtype = Dtype::Float64;  ///< the circuit's dtype for the check
  std::string cases_path;        ///< JSON Lines cases instead of enumeration/sampling
};
struct VerifyResult {
  bool available = false;
  bool ok = false;  ///< the run finished (passed or not)
  std::optional<Diagnostic> error;
  std::size_t cases = 0;
  bool exhaustive = false;
  bool passed = false;
  std::size_t mismatch_count = 0;  ///< all of them (the list holds the first ten)
  std::string reference;           ///< what the circuit was compared with
  std::vector<VerifyMismatch> mismatches;
};
/// A verify or prove outcome as the mismatch list shows it ("error: ..." or
/// "y = 1.5, z = 2"), and the difference of two ("y 0.25", "only the
/// circuit raised").
std::string outcome_text(const Outcome& o);
std::string difference_text(const Outcome& circuit, const Outcome& reference);
VerifyResult verify_source(const std::string& source, const std::string& filename, const std::string& function,
                           const VerifySettings& settings, Progress* progress);

/// Exports. Each returns the file content or an error.
Result<std::string> export_artifact(const Program& program);
Result<std::string> export_optimized(const ProgramSession& session);
/// target: "wgsl", "spirv", "wasm", "onnx" (the model's bytes, as `emit --target onnx`).
Result<std::string> export_target(const ProgramSession& session, const std::string& target);
/// The C export of `emit --target c -o FILE.c`: the source for `source_path`
/// and its header FILE.h beside it (the source includes it by name), the
/// functions prefixed with the file's stem. Refuses a path ending in .h.
struct CSourcePair {
  std::string source, header;
  std::string header_path;
};
Result<CSourcePair> export_c(const ProgramSession& session, const std::string& source_path);
/// Which of export_target's targets this build supports.
std::vector<std::string> export_targets();

/// A node's loop iteration path, "i=3, j=7" ("" outside loops).
std::string iteration_text(const Node& node);

/// Formats a double so it reads back to the same value: whole numbers below
/// 10^15 in plain digits, others in the shortest round-trip form.
std::string format_number(double v);
/// For table cells and graph labels: the shortest round-trip text when it
/// has at most display_precision() significant digits, else rounded to that
/// many (so 1638.0000000000007 reads 1638 unless full precision is asked for).
std::string format_short(double v);
/// Significant digits format_short keeps (default 6); 0 means always the
/// shortest round-trip text. One setting for the whole IDE (View menu).
int display_precision();
void set_display_precision(int digits);
/// format_short with an explicit precision (0: shortest round trip).
std::string format_with_precision(double v, int digits);

}  // namespace views
}  // namespace tc
