// CoreProgram: a tc::Program as the TypeScript Program's native handle.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "eval/evaluator.h"
#include "ir/artifact.h"
#include "ir/program.h"

namespace tc::wasm {

class CoreProgram {
 public:
  CoreProgram() = default;

  val load(const std::string& text);

  val compile(const std::string& source, const val& opts);

  std::string to_json() const { return save_artifact(program_); }

  /// This program with host functions for its call nodes (replaces earlier ones).
  void bind_from(const CoreProgram& other, const val& spec);
  bool has_bindings() const { return bindings_ != nullptr; }

  val info() const;

  /// One checked case: {outputs: {name: v}, nextState: {name: v}}.
  val run(const val& inputs, const val& params, const val& state);

  /// The fast path of run(): input values in input node order (no names to
  /// look up on the JavaScript side), outputs as a Float64Array in artifact
  /// order. Parameters and state take their stored values.
  val run_values(const val& values);

  /// `count` cases; `columns` holds input k of case c at [k * count + c]
  /// (inputs in node order). Returns {outputs: [Float64Array per output],
  /// failed: Uint8Array, errors: [{index, error}]}.
  val run_batch(const val& columns, const val& count_v, const val& params, const val& state, const val& dtype);

  val gradients(const val& inputs, const val& params, const val& state, const val& opts);

  val optimize_into(CoreProgram& out, const val& opts) const;

  val freeze_into(CoreProgram& out, const val& names) const;

  val schedule() const;

  val analyze(const val& opts) const;

  val emit_wasm() const;

  val emit_wgsl() const;

  const Program& program() const { return program_; }
  const std::shared_ptr<Bindings>& bindings() const { return bindings_; }
  /// Where node locations point: the source this program was compiled from here, if any.
  const std::optional<std::string>& source_file() const { return source_file_; }
  void set(Program p, std::optional<std::string> source_file = std::nullopt);

 private:
  Result<Env> make_env(const val& inputs, const val& params, const val& state) const;

  // Prepared once per program (and dtype override): run() is called per case.
  Result<const Evaluator*> evaluator(std::optional<Dtype> dtype = std::nullopt);

  /// An evaluation error, located in the message when the source is known.
  val eval_error(const Diagnostic& d) const;

  Program program_;
  std::optional<std::string> source_file_;
  std::shared_ptr<Bindings> bindings_;  ///< shared with runtimes made from this program
  std::unique_ptr<Evaluator> evaluators_[3];
  std::vector<std::string> output_names_;
};

}  // namespace tc::wasm
