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
/// source also says `#pragma STDC FP_CONTRACT OFF`) and without fast-math.
#include <string>

#include "base/result.h"
#include "emit/checked_plan.h"
#include "ir/program.h"

namespace tc::emit {

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

/// Whether `name` is usable as the prefix (a C identifier, not reserved).
bool valid_c_name(const std::string& name);

}  // namespace tc::emit
