#include "passes/optimize.h"

#include "passes/dead_code.h"
#include "passes/pass_util.h"

namespace tc {

Result<Optimized> optimize(const Program& program, const OptimizeOptions& options) {
  if (Status s = passes::validate_input(program, "optimize"); !s) return s.error();
  Optimized out;
  out.stats.nodes_before = program.nodes.size();
  Program p = program;
  auto step = [&](const char* name, Result<Program> next) -> Status {
    if (!next) return next.error();
    p = std::move(next.value());
    out.stats.after_pass.emplace_back(name, p.nodes.size());
    return ok_status();
  };
  // Dead code first, so folding neither reports nor spends time on nodes
  // that never run.
  if (Status s = step("dce", eliminate_dead_code(p)); !s) return s.error();
  if (options.fold) {
    if (Status s = step("fold", fold_constants(p, options.fold_options)); !s) return s.error();
    if (Status s = step("dce", eliminate_dead_code(p)); !s) return s.error();
  }
  if (options.pack) {
    if (Status s = step("pack", pack_affine(p, options.pack_options)); !s) return s.error();
    if (Status s = step("dce", eliminate_dead_code(p)); !s) return s.error();
  }
  out.stats.nodes_after = p.nodes.size();
  out.program = std::move(p);
  return out;
}

}  // namespace tc
