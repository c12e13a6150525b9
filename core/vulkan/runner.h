#pragma once
/// Runs a stateless, call-free program on a Vulkan compute device in float32:
/// the WGSL emitter's shader, translated to SPIR-V in-process, one invocation
/// per case. The results match the CPU evaluator with dtype float32 (exactly
/// for + - * / and comparisons; within a few ulp for exp-based ops).
///
/// Cases run in blocks (at most 65,535 x 64 cases, the dispatch limit of
/// maxComputeWorkGroupCount[0], and less when staged). A circuit with more
/// than `max_whole_nodes` computing nodes is split into node-id ranges of
/// `stage_nodes` nodes, each its own pipeline, with intermediate values and
/// liveness in storage buffers, so no single shader grows too large for the
/// driver (lavapipe overflows an 8 MiB stack on a 100,000-op shader).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/program.h"

namespace tc::vk {

struct RunnerOptions {
  std::size_t max_whole_nodes = 3000;  ///< above this cost (codegen::plan_cost), the circuit is staged
  std::size_t stage_nodes = 200;      ///< cost (about one per node) per stage
  std::size_t max_block_cases = 65535ull * 64;  ///< cases per dispatch block
  std::size_t staged_scratch_bytes = 256ull << 20;  ///< budget of the values + aux buffers
};

struct RunnerStats {
  double pipeline_seconds = 0;  ///< SPIR-V translation + shader modules + pipelines
  std::size_t stages = 0;       ///< pipelines (1 when not staged)
  std::size_t blocks = 0;       ///< dispatch blocks the last run_batch split its cases into
  std::string device;           ///< device description
};

class Runner {
 public:
  /// Prepares `program` (parameters at their stored values) on the best
  /// device. Fails when the program cannot run on a backend or when there is
  /// no Vulkan device ("no vulkan device: ...").
  static Result<Runner> create(const Program& program, RunnerOptions options = {});
  Runner(Runner&&) noexcept;
  Runner& operator=(Runner&&) noexcept;
  ~Runner();

  /// Like Evaluator::run_batch: columns[k][c] is input k (input ids
  /// ascending) of case c. Input values are checked against their domains on
  /// the host; each failing case gets its error in `out`.
  [[nodiscard]] Status run_batch(std::span<const std::span<const double>> columns, std::size_t count,
                                 BatchResult& out);

  [[nodiscard]] const RunnerStats& stats() const;

 private:
  struct Impl;
  explicit Runner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Description of the device the runner would use, or the error saying why
/// there is none.
Result<std::string> probe_device();

}  // namespace tc::vk
