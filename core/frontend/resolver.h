#pragma once
/// The resolver: what can be known about one function from its syntax tree
/// alone, before any loop is expanded. It binds every name, maps operator
/// spellings to typed operators, resolves calls to builtins, checks the
/// signature against the input domains and the literals against the dtype,
/// and infers a static Python type for every expression and variable.
///
/// The lowering (lower*.cpp) reads these results and adds what depends on
/// the iteration: constant values, intervals, emptiness of branches.
///
/// Errors the resolver finds inside the body are not raised at once: each is
/// recorded on its construct and raised by the lowering when (and only when)
/// it reaches that construct. So the first error in evaluation order wins,
/// and code behind a condition decided at compile time (`if False:`) is not
/// judged, as before the split.
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/diagnostic.h"
#include "base/result.h"
#include "frontend/ast.h"
#include "frontend/compile.h"
#include "frontend/module_scope.h"
#include "ir/op.h"

namespace tc::py {

/// Static Python types a number may have (a bit set: a conditional may give
/// an int on one path and a float on another).
constexpr unsigned kB = 1, kI = 2, kF = 4;
inline bool int_like(unsigned ty) { return (ty & (kB | kI)) != 0; }
/// "bool", "int", "float", "int or float", ... (for messages and tests).
std::string type_text(unsigned ty);

/// The static type of an expression or variable over every path and every
/// iteration of the loops around it: the number types it or any element
/// inside it may have, and its possible shapes as a set of list depths
/// (bit 0: a number, bit k: a list whose elements have depth k - 1; a list
/// mixing numbers and lists sets several bits). Depths from kDeepest on
/// share the last bit.
struct StaticType {
  static constexpr unsigned kDeepest = 7;
  unsigned numbers = 0;  ///< kB | kI | kF
  unsigned shapes = 0;   ///< bit k: may be a value of list depth k
  bool operator==(const StaticType&) const = default;
  [[nodiscard]] bool number() const { return (shapes & 1u) != 0; }
  [[nodiscard]] bool list() const { return (shapes & ~1u) != 0; }
  /// Grows this type to include `o`; true when it changed.
  bool join(const StaticType& o);
  /// The type of an element of such a list (indexing, iteration, unpacking).
  [[nodiscard]] StaticType element() const;
  /// The type of a list whose elements have this type.
  [[nodiscard]] StaticType listed() const;
  static StaticType scalar(unsigned ty) { return {ty, 1u}; }
};
/// "int", "float or list of int", "list of list of bool" (for tests and
/// internal messages).
std::string static_type_text(const StaticType& t);

/// The arithmetic operators of the subset (binary and augmented).
enum class ArithOp { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
/// Comparison operators (of `a < b`, chains, `min`/`max`).
enum class CmpOp { Lt, Le, Gt, Ge, Eq, Ne };
const char* spelling(ArithOp op);  ///< "+", "//", ...
Op circuit_op(ArithOp op);         ///< Op::Add, ... (not for Pow, which is repeated Mul)
Op circuit_op(CmpOp op);           ///< Op::Lt, ...
CmpOp negated(CmpOp op);           ///< `not (a < b)` is `a >= b`
CmpOp flipped(CmpOp op);           ///< `a < b` is `b > a`
bool compare_values(CmpOp op, double a, double b);

/// What a name refers to. Only a Variable and a Constant (a member of the
/// math module such as pi, ExprInfo::constant) have a value: the others are
/// errors wherever they are read.
enum class NameKind { Variable, Constant, Builtin, Range, Function, Undefined };
/// A called builtin: an op of the table spelt in Python (its python column:
/// relu, sigmoid; ExprInfo::op says which), one the lowering composes from
/// other ops (abs, min, max, round, int, float, pow, divmod, isinstance,
/// len), a member of the math module (ExprInfo::math names it), or a
/// function of the same file, inlined at the call (ExprInfo::callee).
enum class Builtin { None, TableOp, Abs, Min, Max, Round, Int, Float, Pow, DivMod, IsInstance, Len, Math, Helper };

/// The deepest chain of helper calls inlined into one another.
constexpr std::size_t kMaxInlineDepth = 32;

struct ExprInfo {
  StaticType type;
  NameKind name = NameKind::Variable;  ///< Name
  ArithOp arith = ArithOp::Add;        ///< Binary
  std::vector<CmpOp> cmps;             ///< Compare: one per operator
  Builtin builtin = Builtin::None;     ///< Call
  Op op = Op::Constant;                ///< Call of a Builtin::TableOp
  std::string math;                    ///< Call of a Builtin::Math: the member ("floor")
  const FunctionDef* callee = nullptr; ///< Call of a Builtin::Helper
  unsigned isinstance_types = 0;       ///< Call of isinstance: the types it accepts (kB | kI | kF bits)
  /// A Name or an Attribute of NameKind::Constant (math.pi, a module
  /// constant): its value and type (kB, kI or kF).
  double constant = 0.0;
  unsigned constant_type = kF;
  /// Raised when the lowering reaches the expression (a Call: after its
  /// arguments, as Python evaluates them first).
  std::optional<Diagnostic> error;
  /// Name of a Variable: raised when no binding reaches this read.
  std::optional<Diagnostic> unbound;
};

struct StmtInfo {
  ArithOp arith = ArithOp::Add;  ///< AugAssign
  bool range = false;            ///< For: over range(...)
  std::optional<Diagnostic> error;  ///< For: raised before the iterable is evaluated
};

struct ParamInfo {
  std::string name;
  SourceLoc loc;
  Domain domain;
  unsigned type = kF;
  double lo = 0.0, hi = 0.0;
  /// A missing or too wide domain: raised when the lowering makes this input.
  std::optional<Diagnostic> error;
};

class Resolution {
 public:
  std::vector<ParamInfo> params;
  /// Static type of each variable (parameters included) over the whole body.
  std::unordered_map<std::string, StaticType> variables;
  StaticType returns;  ///< joined over every return statement

  /// The facts of a construct the resolver walked; nullptr for one it did
  /// not (a bug: the lowering reports it as a located internal error).
  const ExprInfo* find(const Expr& e) const;
  const StmtInfo* find(const Stmt& s) const;
  std::unordered_map<const Expr*, ExprInfo> exprs;
  std::unordered_map<const Stmt*, StmtInfo> stmts;
};

/// Resolves `fn` (already accepted by check_subset). Signature errors (a
/// duplicate parameter, a parameter hiding a builtin, an --input naming no
/// parameter) are returned at once; they come before any of the body.
/// `functions`: the module's top-level function names.
Result<Resolution> resolve(const FunctionDef& fn, const std::set<std::string>& functions, const CompileOptions& o);
/// The same with the module's scope: its functions (resolved where `fn`
/// calls them, with the argument types joined over every call) and imports.
Result<Resolution> resolve(const FunctionDef& fn, const ModuleScope& scope, const CompileOptions& o);

/// The largest magnitude integers keep below under the dtype (2^53 or 2^24),
/// and its description for messages.
double exact_limit(Dtype d);
std::string exact_limit_text(Dtype d, HintSpelling hints = HintSpelling::Cli);
std::string number_text(double v);

}  // namespace tc::py
