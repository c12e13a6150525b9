#include "passes/dead_code.h"

#include "passes/pass_util.h"

namespace tc {

Result<Program> eliminate_dead_code(const Program& program) {
  if (Status s = passes::validate_input(program, "dead-code elimination"); !s) return s.error();
  std::vector<bool> keep = passes::live_nodes(program);
  for (const Node& n : program.nodes)
    if (op_info(n.op).has(kSignature)) keep[static_cast<std::size_t>(n.id)] = true;
  Program out = passes::compact(program, keep, passes::identity_alias(program));
  if (Status s = passes::validate_output(out, "dead-code elimination"); !s) return s.error();
  return out;
}

}  // namespace tc
