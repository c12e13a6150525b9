#include "ir/op.h"

#include <array>

namespace tc {

namespace {
constexpr std::array<OpInfo, kOpCount> kTable = {{
#define TC_OP(E, name, lo, hi, kind, cost, grad, colour, b32, flags, python) \
  {Op::E, name, lo, hi, OpKind::kind, OpCost::cost, OpGrad::grad, OpColour::colour, OpBinary32::b32, flags, python},
#include "ir/ops.def"
#undef TC_OP
}};
}  // namespace

const OpInfo& op_info(Op op) { return kTable[static_cast<std::size_t>(op)]; }

std::string_view op_name(Op op) { return op_info(op).name; }

std::optional<Op> op_from_name(std::string_view name) {
  for (const OpInfo& info : kTable)
    if (info.name == name) return info.op;
  return std::nullopt;
}

std::optional<Op> op_from_python(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (const OpInfo& info : kTable)
    if (info.python == name && !info.has(kMathModule)) return info.op;
  return std::nullopt;
}

std::optional<Op> op_from_math(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (const OpInfo& info : kTable)
    if (info.python == name && info.has(kMathModule)) return info.op;
  return std::nullopt;
}

}  // namespace tc
