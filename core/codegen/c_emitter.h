#pragma once
/// The C99 exporter: a self-contained source and header that compute a
/// stateless, call-free program exactly like the checked CPU evaluator
/// (binary64 arithmetic, binary32 rounding of every node under dtype
/// float32, the same checks and the same reported node; see checked_plan.h).
///
/// Generated API (NAME from CExportOptions::name):
///   int  NAME(double in_X, ..., double *out_Y, ..., long *error_node);
///        one case: inputs in input id order, outputs in artifact order.
///   long NAME_cases(long count, const double *inputs, double *outputs,
///                   int *errors, long *error_nodes);
///        `count` cases, row-major: inputs[c * NAME_INPUT_COUNT + k],
///        outputs[c * NAME_OUTPUT_COUNT + m]; errors / error_nodes may be
///        NULL; returns the number of failed cases.
/// Both return TC_OK (0) or a TC_* error kind (the ErrorKind numbers of
/// emit_plan.h) and store the failing node id (-1 on success). A rejected
/// input reports the input's node. The code needs only <math.h> and must be
/// compiled without floating-point contraction (-ffp-contract=off; the
/// source also says `#pragma STDC FP_CONTRACT OFF` to the compilers that
/// know it, not to GCC, which warns about it) and without fast-math.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "codegen/checked_plan.h"
#include "ir/program.h"

namespace tc::codegen {

struct CExportOptions {
  std::string name = "tc_program";  ///< C identifier prefixing every exported symbol
  /// File name the source includes ("model.h"); empty: the source carries
  /// the declarations itself and includes no header.
  std::string header_file;
};

struct CExport {
  std::string header;
  std::string source;
};

Result<CExport> emit_c(const Program& program, const CExportOptions& options = {});
CExport emit_c(const CheckedPlan& plan, const CExportOptions& options);

/// The evaluator's compiled plan (core/eval/compiled_plan.h) as C99 with
/// GCC/Clang vector extensions, written from the same per-node spelling as
/// the exporter:
///   int  NAME_one(const double *in, const double *prm, double *out);
///   void NAME_block(long n, const double *const *in, const double *prm,
///                   double *const *out, int *flags);
/// `in` holds the inputs (input id order; NAME_block: one column each),
/// `prm` the parameter values (CheckedPlan::params order, already checked
/// and rounded), `out` the outputs. Every needed node is computed with the
/// exporter's IEEE operations; every check that fires (input, domain,
/// division, index, selector, and finiteness where `finite_check` asks)
/// sets the case's flag (NAME_one's result, flags[c]) instead of naming a
/// node: a flagged case is decided and worded by the evaluator itself.
struct CKernelOptions {
  std::string name = "tc_plan";
  /// [node] test the value for inf/NaN; empty: wherever the exporter does.
  std::vector<std::uint8_t> finite_check;
  /// [node] float32: computed in binary32 variables (ops.def's Native
  /// column: bit-identical to binary64 then rounding); empty: every node.
  std::vector<std::uint8_t> native_f32;
  /// NAME_block's shape, from the target's register file: bytes per vector
  /// (16, 32 or 64: one register) and vectors per node, interleaved so that
  /// dependent chains overlap while a block's live values fit the registers.
  std::size_t vector_bytes = 32;
  std::size_t copies = 4;
  /// Statements per function of NAME_block: the C compiler's time grows
  /// faster than linearly with a function's size, so large programs are cut.
  std::size_t segment_nodes = 256;
  std::string isa;  ///< the target's name, written into the source (a comment)
};
std::string emit_c_kernel(const CheckedPlan& plan, const CKernelOptions& options);

/// Whether `name` is usable as the prefix (a C identifier, not reserved,
/// and not a name <math.h> or the export itself declares: floor, NAN,
/// isfinite, TC_OK).
bool valid_c_name(const std::string& name);
/// Why `name` cannot be the prefix (the end of emit_c's message), or nothing.
std::optional<std::string> c_name_problem(const std::string& name);
/// Why `file` cannot be the header the source includes, or nothing. The
/// name is written between the quotes as it is (UTF-8 included: #include
/// processes no escapes); quotes, backslashes, control characters, '//',
/// '/*' and '??' are refused.
std::optional<std::string> c_header_problem(const std::string& file);

/// The prefix a file's name gives (`emit -o gated.c`, the IDE's export):
/// its stem with every other byte turned into '_', "tc_" in front where it
/// would not start with a letter; "tc_program" when that is still unusable.
std::string c_name_for_file(const std::string& path);

}  // namespace tc::codegen
