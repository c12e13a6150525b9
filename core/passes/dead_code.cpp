#include "passes/dead_code.h"

#include "passes/pass_util.h"

namespace tc {

Result<Program> eliminate_dead_code(const Program& program) {
  if (Status s = passes::validate_input(program, "dead-code elimination"); !s) return s.error();
  std::vector<bool> keep = passes::live_nodes(program);
  for (const Node& n : program.nodes) {
    switch (n.op) {
      case Op::Input:
      case Op::Parameter:
      case Op::State:
        keep[static_cast<std::size_t>(n.id)] = true;  // part of the signature
        break;
      case Op::Constant: case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Neg:
      case Op::FloorDiv: case Op::Mod: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq:
      case Op::Ne: case Op::Select: case Op::Relu: case Op::Sigmoid: case Op::Gather: case Op::GatherOneHot:
      case Op::Affine: case Op::SparseAffine: case Op::Call:
        break;
    }
  }
  Program out = passes::compact(program, keep, passes::identity_alias(program));
  if (Status s = passes::validate_output(out, "dead-code elimination"); !s) return s.error();
  return out;
}

}  // namespace tc
