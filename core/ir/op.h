#pragma once
/// The op enum and its static description, generated from ops.def.
#include <cstdint>
#include <optional>
#include <string_view>

namespace tc {

enum class OpKind { Leaf, Arith, Compare, Control, Nonlinear, Linear, Host };

enum OpFlag : unsigned {
  kNamed = 1u << 0,            ///< node carries `name` (input, parameter, state, call binding)
  kHasValue = 1u << 1,         ///< node carries `value` (constant, parameter value, state initial)
  kHasDomain = 1u << 2,        ///< node requires `domain`
  kDecision = 1u << 3,         ///< some argument's exact derivative is zero because of a decision
  kCanFail = 1u << 4,          ///< can raise a runtime error beyond non-finite results
  kHasCoefficients = 1u << 5,  ///< node carries `coefficients` / `bias` (/ `indices`)
};

enum class Op : std::uint8_t {
#define TC_OP(E, name, lo, hi, kind, flags) E,
#include "ir/ops.def"
#undef TC_OP
};

inline constexpr int kOpCount = 0
#define TC_OP(E, name, lo, hi, kind, flags) +1
#include "ir/ops.def"
#undef TC_OP
    ;

struct OpInfo {
  Op op;
  std::string_view name;
  int min_args;
  int max_args;  ///< -1 means unbounded
  OpKind kind;
  unsigned flags;
  [[nodiscard]] bool has(OpFlag f) const { return (flags & f) != 0; }
};

/// Static description of `op`.
const OpInfo& op_info(Op op);
/// Artifact spelling of `op` ("add", "gather_one_hot", ...).
std::string_view op_name(Op op);
/// Parses an artifact op name; nullopt for unknown names.
std::optional<Op> op_from_name(std::string_view name);

inline bool is_leaf(Op op) { return op_info(op).kind == OpKind::Leaf; }
inline bool is_comparison(Op op) { return op_info(op).kind == OpKind::Compare; }

}  // namespace tc
