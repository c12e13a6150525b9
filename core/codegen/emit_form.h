#pragma once
/// The op and arguments an emitter writes a node as. Most nodes are written
/// as themselves; an op that op_semantics.h declares a composition (one
/// that is, bit for bit and error for error, another op over its argument
/// repeated) is written as that op, so an emitter needs no case for it.
/// Everything else an emitter reads of the node (its id, domain, checks and
/// error words) stays the node's own.
#include <vector>

#include "base/result.h"
#include "ir/op_semantics.h"
#include "ir/program.h"

namespace tc::codegen {

struct EmitForm {
  Op op;
  NodeArgs args;
};

inline EmitForm emit_form(const Node& node) {
  if (auto c = sem::composition(node.op))
    return {c->op, NodeArgs(std::vector<NodeId>(static_cast<std::size_t>(c->arity), node.args[0]))};
  return {node.op, node.args};
}

/// An emitter's switch reached with an op it has no case for: a new op that
/// is neither written out by the emitter nor a composition. Names the op.
[[noreturn]] inline void no_emitter_form(const char* backend, Op op) {
  const std::string what = std::string("the ") + backend + " emitter has no form for op '" + std::string(op_name(op)) +
                           "': write its case, or declare it a composition in op_semantics.h";
  internal_error(__FILE__, __LINE__, what.c_str());
}

}  // namespace tc::codegen
