// CoreProgram: a tc::Program as the TypeScript Program's native handle.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "eval/evaluator.h"
#include "grad/gradients.h"
#include "ir/artifact.h"
#include "ir/program.h"
#include "session/program_session.h"

namespace tc::wasm {

class CoreProgram {
 public:
  CoreProgram() = default;

  val load(const std::string& text);

  val compile(const std::string& source, const val& opts);

  std::string to_json() const { return save_artifact(program()); }

  /// This program with host functions for its call nodes (replaces earlier ones).
  void bind_from(const CoreProgram& other, const val& spec);
  bool has_bindings() const { return bindings_ != nullptr; }

  val info() const;

  /// Which tier runs this program (core's PlanStatus): in the WebAssembly
  /// build always the interpreter, with the reason.
  val plan_status();

  /// One checked case: {outputs: {name: v}, nextState: {name: v}}.
  val run(const val& inputs, const val& params, const val& state);

  /// The fast path of run(): input values in input node order (no names to
  /// look up on the JavaScript side), outputs as a Float64Array in artifact
  /// order. Parameters and state take their stored values.
  val run_values(const val& values);

  /// The fastest run(): the TypeScript layer writes the input values (node
  /// order) into the buffer at fast_address() in the heap, run_fast()
  /// evaluates with a reused Env and writes the outputs (artifact order)
  /// there; 0 on success, else 1 with the error kept for fast_error(). No
  /// JavaScript value is made or read per call.
  double fast_address();
  int run_fast();
  val fast_error() const { return fast_error_; }
  /// gradients() the same way: inputs at fast_address(), parameters and state
  /// their stored values; returns the address of [value, d/d leaf...] (leaves
  /// in node order, named by fast_gradient_names()), or 0 with the error kept.
  double gradients_fast(const std::string& output);
  val fast_gradient_names() const;

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
  /// emit --target onnx: the model's bytes.
  val emit_onnx() const;
  /// emit --target c: {source, header} for `name` (and the header's file name, or "").
  val emit_c(const std::string& name, const std::string& header_file) const;

  const Program& program() const { return session_.program(); }
  const std::shared_ptr<Bindings>& bindings() const { return bindings_; }
  /// Where node locations point: the source this program was compiled from here, if any.
  const std::optional<std::string>& source_file() const { return source_file_; }
  /// Replaces the program (and its bindings: none unless given), dropping
  /// every prepared evaluator, tape and fast-path state.
  void set(Program p, std::optional<std::string> source_file = std::nullopt,
           std::shared_ptr<Bindings> bindings = nullptr);

 private:
  Result<Env> make_env(const val& inputs, const val& params, const val& state) const;

  // The session's, prepared once per program and dtype override: run() is called per case.
  Result<const Evaluator*> evaluator(std::optional<Dtype> dtype = std::nullopt);

  /// An evaluation error, located in the message when the source is known.
  val eval_error(const Diagnostic& d) const;

  std::optional<std::string> source_file_;
  std::shared_ptr<Bindings> bindings_;  ///< shared with runtimes made from this program
  /// The program with its evaluators (per dtype override) and tapes (per
  /// output): core's session, which also serves a host function calling
  /// back into a running tape with a tape of its own.
  ProgramSession session_{Program{}};
  std::vector<std::string> output_names_;
  // The fast path's state (run_fast): made on first use, dropped by set().
  std::vector<double> fast_values_;
  Env fast_env_;
  std::vector<double*> fast_slots_;  ///< fast_env_'s input values, in input node order
  val fast_error_ = val::undefined();
  std::vector<double> fast_grads_;
  std::vector<std::string> fast_grad_names_;
  // run_batch's input columns, kept between calls (up to kKeptBatchValues
  // doubles) so that a batch neither allocates nor zero-fills them again;
  // a batch started from inside one (a host function) uses its own.
  std::vector<double> batch_inputs_;
  bool in_batch_ = false;
};

}  // namespace tc::wasm
