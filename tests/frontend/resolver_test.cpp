// The resolver on its own: static types of variables and returns (a table of
// cases), name binding, typed operators, builtins, the signature, and errors
// that wait for the lowering to reach their construct.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "frontend/parser.h"
#include "frontend/resolver.h"
#include "frontend/subset.h"
#include "frontend_util.h"
#include "ir/domain.h"

namespace tc {
namespace {

struct Resolved {
  py::Module module;  // owns the syntax tree the resolution points into
  Result<py::Resolution> res = Diagnostic{};
};

// Parses `src` and resolves its last function with the given NAME=DOMAIN inputs.
std::unique_ptr<Resolved> resolve_text(const std::string& src, const std::vector<std::string>& inputs,
                                       Dtype dtype = Dtype::Float64) {
  auto out = std::make_unique<Resolved>();
  auto m = py::parse_module(src);
  EXPECT_TRUE(m.ok()) << m.error().format();
  if (!m) return out;
  out->module = std::move(*m);
  CompileOptions o;
  o.dtype = dtype;
  for (const std::string& item : inputs) {
    auto eq = item.find('=');
    auto d = parse_domain(item.substr(eq + 1));
    EXPECT_TRUE(d.ok());
    o.inputs.emplace_back(item.substr(0, eq), *d);
  }
  std::set<std::string> functions;
  const py::FunctionDef* fn = nullptr;
  for (const auto& s : out->module.body)
    if (s->kind == py::StmtKind::Def) {
      functions.insert(s->def->name);
      fn = s->def.get();  // the last one
    }
  EXPECT_NE(fn, nullptr);
  if (fn) out->res = py::resolve(*fn, functions, o);
  return out;
}

// The first Name expression spelled `name` in the module, in source order.
const py::Expr* find_name(const py::Module& m, const std::string& name) {
  const py::Expr* found = nullptr;
  std::function<void(const py::Expr&)> in_expr = [&](const py::Expr& e) {
    if (found) return;
    if (e.kind == py::ExprKind::Name && e.text == name) {
      found = &e;
      return;
    }
    for (const auto& k : e.kids) in_expr(*k);
  };
  std::function<void(const std::vector<py::StmtPtr>&)> in_body = [&](const std::vector<py::StmtPtr>& body) {
    for (const auto& s : body) {
      if (s->value) in_expr(*s->value);
      if (s->def) in_body(s->def->body);
      in_body(s->body);
      in_body(s->orelse);
    }
  };
  in_body(m.body);
  return found;
}

struct TypeCase {
  const char* name;
  const char* source;
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, std::string>> variables;  // name -> static type text
  std::string returns;
};

// Each variable's type joins every assignment on every path and in every
// expansion of the loops; the expected texts were worked out by hand from
// Python's rules (bool + bool is an int, / always gives a float, ...).
const std::vector<TypeCase> kTypeCases = {
    {"parameters", "def f(a, b, c):\n    return a\n", {"a=int32:-3:3", "b=bool", "c=float64"},
     {{"a", "int"}, {"b", "bool"}, {"c", "float"}}, "int"},
    {"division_in_a_loop_grows_the_type",
     "def f(a):\n    x = a\n    for i in range(3):\n        x = x / 2\n    return x\n", {"a=int32:-3:3"},
     {{"x", "int or float"}, {"i", "int"}}, "int or float"},
    {"bool_arithmetic_is_int", "def f(b):\n    t = b + b\n    return t < 1\n", {"b=bool"}, {{"t", "int"}}, "bool"},
    {"floor_division_of_ints", "def f(a):\n    q = a // 2\n    r = a % 2.0\n    return q\n", {"a=int32:-9:9"},
     {{"q", "int"}, {"r", "float"}}, "int"},
    {"augmented_assignment", "def f(a):\n    s = 0\n    s += a * 0.5\n    s //= 1\n    return s\n",
     {"a=int32:-9:9"}, {{"s", "int or float"}}, "int or float"},
    {"builtins", "def f(a, b):\n    u = sigmoid(a)\n    v = abs(b)\n    w = min(a, 2.5)\n    z = relu(a)\n    return w\n",
     {"a=int32:-9:9", "b=bool"}, {{"u", "float"}, {"v", "int"}, {"w", "int or float"}, {"z", "int"}},
     "int or float"},
    {"lists_and_indexing", "def f(a):\n    w = [1, 2.5]\n    v = w[a]\n    return [v, a]\n", {"a=int32:0:1"},
     {{"w", "list of int or float"}, {"v", "int or float"}}, "list of int or float"},
    {"nested_lists", "def f(a):\n    m = [[1], [2]]\n    r = m[a]\n    return r[0]\n", {"a=int32:0:1"},
     {{"m", "list of list of int"}, {"r", "list of int"}}, "int"},
    {"mixed_depths", "def f(a):\n    m = [1, [2.5, []]]\n    return m[0]\n", {"a=int32:0:1"},
     {{"m", "list of int or float or list of list of int or float or list of list of list of int or float"}},
     "int or float or list of int or float or list of list of int or float"},
    {"conditional_mixes_types", "def f(a):\n    y = 1 if a > 0 else 0.5\n    return y\n", {"a=int32:-1:1"},
     {{"y", "int or float"}}, "int or float"},
    {"loop_over_a_list", "def f(a):\n    s = 0\n    for lo, hi in [(0, 1.5), (2, 3)]:\n        s = s + lo\n    return s\n",
     {"a=int32:-1:1"}, {{"lo", "int or float"}, {"hi", "int or float"}, {"s", "int or float"}}, "int or float"},
    {"unary_plus_of_bool", "def f(b):\n    return +b\n", {"b=bool"}, {}, "bool or int"},
};

TEST(Resolver, StaticTypes) {
  for (const TypeCase& c : kTypeCases) {
    SCOPED_TRACE(c.name);
    auto r = resolve_text(c.source, c.inputs);
    ASSERT_TRUE(r->res.ok()) << r->res.error().format();
    for (const auto& [name, text] : c.variables) {
      auto it = r->res->variables.find(name);
      ASSERT_NE(it, r->res->variables.end()) << name;
      EXPECT_EQ(py::static_type_text(it->second), text) << name;
    }
    EXPECT_EQ(py::static_type_text(r->res->returns), c.returns);
  }
}

// The lowering checks every value it makes against the static type of its
// expression, so each case must also compile (a wrong rule would surface
// as an internal error here).
TEST(Resolver, TypeCasesCompile) {
  for (const TypeCase& c : kTypeCases) {
    SCOPED_TRACE(c.name);
    auto out = test::compile_text(c.source, c.inputs);
    EXPECT_TRUE(out.ok()) << out.error().format();
  }
}

TEST(Resolver, BindsNames) {
  auto r = resolve_text(
      "def g():\n    return 1\n"
      "def f(a):\n    x = relu\n    y = range\n    z = g\n    w = nothing\n    v = later\n    later = 1\n"
      "    return a\n",
      {"a=int32:0:1"});
  ASSERT_TRUE(r->res.ok());
  auto at = [&](const py::Expr& e) -> const py::ExprInfo& { return *r->res->find(e); };
  auto kind = [&](const char* n) { return at(*find_name(r->module, n)).name; };
  EXPECT_EQ(kind("a"), py::NameKind::Variable);
  EXPECT_EQ(kind("relu"), py::NameKind::Builtin);
  EXPECT_EQ(kind("range"), py::NameKind::Range);
  EXPECT_EQ(kind("g"), py::NameKind::Function);
  EXPECT_EQ(kind("nothing"), py::NameKind::Undefined);
  EXPECT_EQ(kind("later"), py::NameKind::Variable);
  const py::ExprInfo& nothing = at(*find_name(r->module, "nothing"));
  ASSERT_TRUE(nothing.error.has_value());
  EXPECT_EQ(nothing.error->message, "name 'nothing' is not defined");
  const py::ExprInfo& later = at(*find_name(r->module, "later"));
  EXPECT_FALSE(later.error.has_value());
  ASSERT_TRUE(later.unbound.has_value());
  EXPECT_EQ(later.unbound->message, "name 'later' is used before it is assigned");
  EXPECT_EQ(later.unbound->loc, (SourceLoc{8, 9}));
}

TEST(Resolver, TypesOperatorsAndCalls) {
  auto r = resolve_text("def f(a):\n    q = a // 2\n    t = 0 < a <= 3\n    return max(q, 1)\n", {"a=int32:0:9"});
  ASSERT_TRUE(r->res.ok());
  const auto& body = r->module.body[0]->def->body;
  EXPECT_EQ(r->res->find(*body[0]->value)->arith, py::ArithOp::FloorDiv);
  EXPECT_EQ(r->res->find(*body[1]->value)->cmps, (std::vector<py::CmpOp>{py::CmpOp::Lt, py::CmpOp::Le}));
  EXPECT_EQ(r->res->find(*body[2]->value)->builtin, py::Builtin::Max);
  EXPECT_EQ(py::circuit_op(py::ArithOp::FloorDiv), Op::FloorDiv);
  EXPECT_EQ(py::circuit_op(py::CmpOp::Le), Op::Le);
  for (py::CmpOp op : {py::CmpOp::Lt, py::CmpOp::Le, py::CmpOp::Gt, py::CmpOp::Ge, py::CmpOp::Eq, py::CmpOp::Ne})
    for (double x : {-1.0, 0.0, 1.0}) {
      EXPECT_EQ(py::compare_values(py::negated(op), x, 0.0), !py::compare_values(op, x, 0.0));
      EXPECT_EQ(py::compare_values(py::flipped(op), 0.0, x), py::compare_values(op, x, 0.0));
    }
}

// Walks the op table: every row with a Python spelling (ops.def, python
// column) is a builtin the subset accepts and lists in its messages, that
// resolves to its op with the row's result type, and that lowers to a node
// of that op. A row the frontend does not derive fails here by name.
TEST(Resolver, EveryTableBuiltinIsSpelledByTheFrontend) {
  int spelled = 0;
  auto unknown = test::compile_text("def f(a):\n    return nothing(a)\n", {"a=float64:-1:1"});
  ASSERT_FALSE(unknown.ok());
  for (int k = 0; k < kOpCount; ++k) {
    const OpInfo& row = op_info(static_cast<Op>(k));
    if (row.python.empty() || row.has(kMathModule)) continue;  // math.sqrt: MathModuleOpsAreMembersNotBuiltins
    ++spelled;
    const std::string name(row.python);
    SCOPED_TRACE("op " + std::string(row.name) + " spelled " + name);
    EXPECT_TRUE(py::is_supported_builtin(name)) << "the subset check does not accept " << name;
    EXPECT_NE(py::builtin_list_text().find(name), std::string::npos) << "the builtin list omits " << name;
    EXPECT_NE(unknown.error().message.find(name), std::string::npos) << unknown.error().message;
    ASSERT_EQ(row.min_args, 1) << "this test calls " << name << " with one argument";
    const std::string src = "def f(a):\n    return " + name + "(a)\n";
    auto r = resolve_text(src, {"a=int32:-3:3"});
    ASSERT_TRUE(r->res.ok()) << r->res.error().format();
    const py::ExprInfo& call = *r->res->find(*r->module.body[0]->def->body[0]->value);
    EXPECT_EQ(call.builtin, py::Builtin::TableOp);
    EXPECT_EQ(call.op, row.op) << name << " resolves to " << op_name(call.op);
    EXPECT_EQ(call.type.numbers, row.has(kPyFloat) ? py::kF : py::kI) << "result type of " << name << "(int)";
    auto c = test::compile_text(src, {"a=float64:-1:1"});
    ASSERT_TRUE(c.ok()) << c.error().format();
    bool lowered = false;
    for (const Node& n : c->program.nodes) lowered = lowered || n.op == row.op;
    EXPECT_TRUE(lowered) << name << "(a) does not lower to a " << row.name << " node";
  }
  EXPECT_GE(spelled, 2);  // relu and sigmoid at least
}

TEST(Resolver, SignatureErrorsAreImmediate) {
  auto dup = resolve_text("def f(a, a):\n    return a\n", {"a=int32:0:1"});
  ASSERT_FALSE(dup->res.ok());
  EXPECT_EQ(dup->res.error().message, "duplicate parameter 'a'");
  auto extra = resolve_text("def f(a):\n    return a\n", {"a=int32:0:1", "b=bool"});
  ASSERT_FALSE(extra->res.ok());
  EXPECT_EQ(extra->res.error().message, "--input 'b' names no parameter of 'f' (its parameters: a)");
  // A missing domain waits for the lowering to make that input (after the
  // inputs before it, which count against the node budget).
  auto missing = resolve_text("def f(a, b):\n    return a\n", {"a=int32:0:1"});
  ASSERT_TRUE(missing->res.ok());
  ASSERT_EQ(missing->res->params.size(), 2u);
  EXPECT_FALSE(missing->res->params[0].error.has_value());
  ASSERT_TRUE(missing->res->params[1].error.has_value());
  EXPECT_EQ(missing->res->params[1].error->loc, (SourceLoc{1, 10}));
}

TEST(Resolver, LiteralLimitFollowsTheDtype) {
  const char* src = "def f(a):\n    return a + 20000000\n";
  auto f64 = resolve_text(src, {"a=int32:0:1"});
  ASSERT_TRUE(f64->res.ok());
  const py::Expr& sum = *f64->module.body[0]->def->body[0]->value;
  EXPECT_FALSE(f64->res->find(*sum.kids[1])->error.has_value());
  auto f32 = resolve_text(src, {"a=int32:0:1"}, Dtype::Float32);
  ASSERT_TRUE(f32->res.ok());
  const py::Expr& sum32 = *f32->module.body[0]->def->body[0]->value;
  ASSERT_TRUE(f32->res->find(*sum32.kids[1])->error.has_value());
  EXPECT_NE(f32->res->find(*sum32.kids[1])->error->message.find("is beyond 2^24"), std::string::npos);
}

// Errors found by the resolver are raised only where the lowering gets to:
// a branch decided at compile time is never judged, as in CPython, where it
// never runs.
TEST(Resolver, ErrorsWaitForTheLowering) {
  auto dead = test::compile_text("def f(a):\n    if False:\n        return nothing\n    return a\n", {"a=int32:0:1"});
  EXPECT_TRUE(dead.ok()) << dead.error().format();
  auto live = test::compile_text("def f(a):\n    if a > 0:\n        return nothing\n    return a\n", {"a=int32:0:1"});
  ASSERT_FALSE(live.ok());
  EXPECT_EQ(live.error().format(), "test.py:3:16: error: name 'nothing' is not defined");
  // The first error in evaluation order wins: the budget error of the loop
  // comes before the undefined name after it.
  auto order = test::compile_text(
      "def f(a):\n    for i in range(2000):\n        a = a + 1\n    return nothing\n", {"a=int32:0:1"});
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().message.find("iteration budget"), std::string::npos) << order.error().format();
}

}  // namespace
}  // namespace tc
