#pragma once
/// The op enum and its static description, generated from ops.def.
#include <cstdint>
#include <optional>
#include <string_view>

namespace tc {

enum class OpKind { Leaf, Arith, Compare, Control, Nonlinear, Linear, Host };

/// Size of the code an emitter makes of a node (see OpInfo::cost).
enum class OpCost { Free, Unit, PerArg, LongDivision };

/// Which arguments a derivative can flow through, for some argument values.
enum class OpGrad {
  Smooth,            ///< every argument
  Flat,              ///< none, in every semantics (piecewise constant, or no arguments)
  Decides,           ///< none in exact semantics: the result is a decision (comparisons)
  FirstDecides,      ///< argument 0 is a decision (exact: no flow), the others carry
  FirstHalfDecides,  ///< the first half are selectors (exact: no flow), the second half carry
};

/// The family the graph view paints a node with.
enum class OpColour { Input, Parameter, Constant, State, Arith, Compare, Choice, Nonlinear, Linear, Host };

/// How a float32 evaluator may compute the op's exact form (see ops.def).
enum class OpBinary32 {
  Native,   ///< in binary32 directly: bit-identical to binary64 then rounded
  Widened,  ///< in binary64, then rounded to binary32
};

enum OpFlag : unsigned {
  kNamed = 1u << 0,            ///< node carries `name` (input, parameter, state, call binding)
  kHasValue = 1u << 1,         ///< node carries `value` (constant, parameter value, state initial)
  kHasDomain = 1u << 2,        ///< node requires `domain`
  kSignature = 1u << 3,        ///< part of the program's signature: passes keep it even when unused
  kCanFail = 1u << 4,          ///< can raise a runtime error beyond non-finite results
  kHasCoefficients = 1u << 5,  ///< node carries `coefficients` / `bias` (/ `indices`)
  /// The batched evaluator's kernel reads a uniform (one value for the whole
  /// batch) operand directly, without a broadcast column.
  kTakesUniform = 1u << 6,
  /// A non-finite argument always gives a non-finite result, so the batched
  /// evaluator may test the value once downstream instead of where it is
  /// produced. Ops without it "launder" (a comparison, relu, a choice can
  /// turn inf or NaN into a finite value); select is lazy besides, so only
  /// its condition (exact) counts as an argument it reads.
  kKeepsNonFinite = 1u << 7,
  /// Its Python spelling returns a float whatever the argument (sigmoid);
  /// without it the result has the argument's number type (relu).
  kPyFloat = 1u << 8,
  /// Its python column names a member of the math module (math.sqrt), not
  /// a builtin: ir/math_functions.h has its C function and domain.
  kMathModule = 1u << 9,
};

enum class Op : std::uint8_t {
#define TC_OP(E, name, lo, hi, kind, cost, grad, colour, b32, flags, python) E,
#include "ir/ops.def"
#undef TC_OP
};

inline constexpr int kOpCount = 0
#define TC_OP(E, name, lo, hi, kind, cost, grad, colour, b32, flags, python) +1
#include "ir/ops.def"
#undef TC_OP
    ;

struct OpInfo {
  Op op;
  std::string_view name;
  int min_args;
  int max_args;  ///< -1 means unbounded
  OpKind kind;
  OpCost cost;
  OpGrad grad;
  OpColour colour;
  OpBinary32 binary32;
  unsigned flags;
  std::string_view python;  ///< builtin spelling in the Python subset, or empty
  [[nodiscard]] bool has(OpFlag f) const { return (flags & f) != 0; }
  /// Some argument's exact derivative is zero because the op makes a decision.
  [[nodiscard]] bool decides() const {
    return grad == OpGrad::Decides || grad == OpGrad::FirstDecides || grad == OpGrad::FirstHalfDecides;
  }
  /// Whether argument k of a node with `count` arguments is a decision input
  /// (its exact derivative is zero whatever the values).
  [[nodiscard]] bool is_decision_arg(int k, int count) const {
    switch (grad) {
      case OpGrad::Smooth: case OpGrad::Flat: return false;
      case OpGrad::Decides: return true;
      case OpGrad::FirstDecides: return k == 0;
      case OpGrad::FirstHalfDecides: return k < count / 2;
    }
    return false;
  }
};

/// Static description of `op`.
const OpInfo& op_info(Op op);
/// Artifact spelling of `op` ("add", "gather_one_hot", ...).
std::string_view op_name(Op op);
/// Parses an artifact op name; nullopt for unknown names.
std::optional<Op> op_from_name(std::string_view name);
/// The op a Python builtin name spells (the table's python column); nullopt
/// for names that are not op builtins.
std::optional<Op> op_from_python(std::string_view name);
/// The op a member of the math module spells (rows with kMathModule):
/// op_from_math("sqrt") is Op::Sqrt; nullopt for the others.
std::optional<Op> op_from_math(std::string_view name);

inline bool is_leaf(Op op) { return op_info(op).kind == OpKind::Leaf; }
inline bool is_comparison(Op op) { return op_info(op).kind == OpKind::Compare; }

}  // namespace tc
