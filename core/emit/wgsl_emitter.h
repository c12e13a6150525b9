#pragma once
/// The float32 WGSL emitter: one compute invocation per case.
///
/// Bindings (group 0, all storage buffers, 4-byte elements; N = params[0] is
/// the number of cases in this dispatch, c the case index = global id x):
///   0 params  array<u32> read        [0] = N
///   1 inputs  array<f32> read        inputs[k * N + c] = input k (input node ids ascending)
///   2 outputs array<f32> read_write  outputs[k * N + c] = output k (Program::outputs order)
///   3 errors  array<u32> read_write  errors[c] = 0, or (node << 3) | ErrorKind
/// Staged shaders (emit_wgsl_stages) add, per node id i:
///   4 values  array<f32> read_write  values[i * N + c]
///   5 aux     array<u32> read_write  aux[i * N + c]: the node's error kind after
///                                    a forward stage, its liveness (0/1) after a
///                                    reverse stage
/// Workgroup size is kWorkgroupSize x 1 x 1; dispatch ceil(N / 64) groups.
#include <cstddef>
#include <string>
#include <vector>

#include "base/result.h"
#include "codegen/emit_plan.h"
#include "ir/program.h"

namespace tc::emit {

inline constexpr unsigned kWorkgroupSize = 64;

/// One shader that computes every case completely (forward values, liveness,
/// error code, outputs). Also checks the input columns against the input
/// domains (an input failure wins over node failures, as on the CPU).
Result<std::string> emit_wgsl(const Program& program);
std::string emit_wgsl(const codegen::Plan& plan);

/// A part of a circuit too large for one shader.
struct WgslStage {
  enum Kind { Forward, Reverse } kind = Forward;
  NodeId lo = 0, hi = 0;  ///< node id range [lo, hi)
  std::string code;
};

/// Splits the needed nodes into id ranges of about `max_nodes` computing
/// nodes (weighted by node_cost) and returns the shaders in execution order: the forward stages
/// ascending, then the reverse (liveness + error) stages descending; the first
/// reverse stage writes the outputs, the last one leaves the final error code.
/// Input domains are not checked by stages: the host checks them.
std::vector<WgslStage> emit_wgsl_stages(const codegen::Plan& plan, std::size_t max_nodes);

/// WGSL spelling of a float32 constant (hexadecimal float, exact): "0x1.8p+1f".
std::string wgsl_float(float v);

}  // namespace tc::emit
