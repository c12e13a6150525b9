#pragma once
// Shared by the passes tests: random Builder programs, input sampling,
// behaviour comparison through the evaluator, interval soundness checks and
// the frontend corpus.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "frontend/compile.h"
#include "ir/program.h"
#include "passes/analyze.h"

namespace tc::testing {

struct RandomProgramOptions {
  int min_ops = 6;
  int max_ops = 40;
  bool allow_float32 = true;
  bool allow_relaxed = true;
  bool allow_state = true;
  /// Gathers and gather_one_hots whose index folds to a constant while the
  /// listed values may fail (off by default: it changes the random stream).
  bool constant_indices = false;
};

/// A random valid program built with Builder: small integer, boolean and
/// floating inputs, arithmetic, decisions, gathers, multiply-add chains with
/// constant coefficients (in every shape the packer must handle), sometimes a
/// parameter, state, float32 dtype, hybrid or relaxed semantics, unused nodes.
Program random_program(std::mt19937_64& rng, const RandomProgramOptions& options = {});

/// `count` environments: edge values (domain ends, zero, -0.0, +-1) first,
/// then uniform draws; state values are drawn from their domains.
std::vector<Env> sample_envs(const Program& program, std::mt19937_64& rng, int count);

/// What one case did: its error (empty when it succeeded), outputs and
/// next state as raw bit patterns.
struct Outcome {
  bool failed = false;
  std::string error;
  std::vector<std::uint64_t> outputs;
  std::vector<std::uint64_t> next_state;
};
Outcome run_case(const Evaluator& evaluator, const Env& env);

/// Compares `before` and `after` on every environment: both fail, or both
/// succeed with bit-identical outputs and next state (matched by name).
/// Returns a description of the first difference, or nullopt.
std::optional<std::string> compare_behaviour(const Program& before, const Program& after, const std::vector<Env>& envs,
                                             int* successes = nullptr);

/// Checks that every value the evaluator computes lies in its node's
/// interval. Returns the first violation, or nullopt.
std::optional<std::string> check_soundness(const Program& program, const Analysis& analysis,
                                           const std::vector<Env>& envs, int* checked_values = nullptr);

/// Checks that every run-time error is foreseen: the failing node, or a node
/// it (transitively) depends on, carries a warning. Returns the first error
/// nobody warned about, or nullopt. `failures` counts the failing cases seen.
std::optional<std::string> check_errors_foreseen(const Program& program, const Analysis& analysis,
                                                 const std::vector<Env>& envs, int* failures = nullptr);

/// One program of tests/data/corpus (header comments give the compile options).
struct CorpusEntry {
  std::string name;
  std::string source;
  CompileOptions options;
};
/// Every corpus file, sorted by name (empty when the corpus does not exist yet).
std::vector<CorpusEntry> load_corpus();
/// Parses the `# inputs:`, `# function:` and `# dtype:` header comments.
std::optional<CompileOptions> corpus_options(const std::string& name, const std::string& source);

/// Short text of a double that reads back identically.
std::string show(double v);

}  // namespace tc::testing
