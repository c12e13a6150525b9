// Walks the op table and checks the columns other components derive their
// behaviour from against what the evaluator actually does, so a new row with
// a wrong column fails here rather than in an emitter or the gradient tape:
//   kind:     only arithmetic and linear ops turn finite arguments into a
//             non-finite result (the emitters check exactly those kinds);
//   kCanFail: exactly the ops some arguments make raise another run-time error;
//   grad, kSignature, cost: consistent with the kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/builder.h"
#include "ir/op_semantics.h"

namespace tc {
namespace {

const std::vector<double> kValues = {0, 1, 2, -2, 0.5, 1e308, -1e308, 1e-308};

// A node of `op` over fresh inputs a0..a(n-1), with the smallest argument
// count the op accepts (two values for the variadic ones).
Result<Program> single_op(Op op, int& nargs) {
  const OpInfo& info = op_info(op);
  Builder b(Semantics::Exact);
  nargs = op == Op::Gather ? 3 : op == Op::GatherOneHot ? 4 : std::max(info.min_args, op == Op::Affine ? 2 : 1);
  if (op == Op::SparseAffine) nargs = 2;
  std::vector<Arg> xs;
  for (int k = 0; k < nargs; ++k) xs.push_back(b.input("a" + std::to_string(k), Domain::float64()));
  Value r;
  switch (op) {
    case Op::Gather: r = b.gather({xs[1], xs[2]}, xs[0]); break;
    case Op::GatherOneHot: r = b.gather_one_hot({xs[0], xs[1]}, {xs[2], xs[3]}); break;
    case Op::Affine: r = b.affine(xs, {1, 1}); break;
    case Op::SparseAffine: r = b.sparse_affine(xs, {0, 1}, {1, 1}); break;
    // A raise has no arguments: it is reached through a select (a0 < 0).
    case Op::Raise: r = b.select(b.op("lt", xs[0], b.constant(0)), b.raise("ValueError: a0 is negative"), xs[0]); break;
    default: r = b.op(op, xs);
  }
  return b.build(r);
}

struct Seen {
  bool overflow = false;  // a non-finite result from finite arguments
  bool failure = false;   // any other run-time error
};

Seen explore(Op op) {
  int n = 0;
  auto p = single_op(op, n);
  EXPECT_TRUE(p.ok()) << op_name(op) << ": " << (p.ok() ? "" : p.error().message);
  Seen seen;
  if (!p) return seen;
  auto ev = Evaluator::create(*p);
  EXPECT_TRUE(ev.ok());
  if (!ev) return seen;
  std::vector<std::size_t> idx(static_cast<std::size_t>(n), 0);
  while (true) {
    Env env;
    for (int k = 0; k < n; ++k) env.inputs["a" + std::to_string(k)] = kValues[idx[static_cast<std::size_t>(k)]];
    auto r = ev->run(env);
    if (!r) {
      const std::string& m = r.error().message;
      if (m.find("infinite") != std::string::npos || m.find("nan") != std::string::npos) seen.overflow = true;
      else seen.failure = true;
    } else if (!std::isfinite(r->outputs[0])) {
      seen.overflow = true;
    }
    std::size_t k = 0;
    while (k < idx.size() && ++idx[k] == kValues.size()) idx[k++] = 0;
    if (k == idx.size()) break;
  }
  return seen;
}

TEST(OpColumns, OverflowAndFailureFlagsMatchTheEvaluator) {
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    const OpInfo& info = op_info(op);
    if (info.kind == OpKind::Leaf || info.kind == OpKind::Host) continue;  // no arguments / a host binding
    SCOPED_TRACE(std::string(op_name(op)));
    Seen seen = explore(op);
    if (seen.overflow) EXPECT_TRUE(info.kind == OpKind::Arith || info.kind == OpKind::Linear);
    EXPECT_EQ(seen.failure, info.has(kCanFail));
  }
}

TEST(OpColumns, DecisionArgumentsAreExactlyTheTestedOnes) {
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    const OpInfo& info = op_info(op);
    SCOPED_TRACE(std::string(op_name(op)));
    const bool decides = info.kind == OpKind::Compare || op == Op::Select || op == Op::Gather || op == Op::GatherOneHot;
    EXPECT_EQ(info.decides(), decides);
    if (op == Op::Select || op == Op::Gather) {
      EXPECT_TRUE(info.is_decision_arg(0, 3));
      EXPECT_FALSE(info.is_decision_arg(1, 3));
    }
    if (op == Op::GatherOneHot) {
      EXPECT_TRUE(info.is_decision_arg(1, 4));
      EXPECT_FALSE(info.is_decision_arg(2, 4));
    }
    // Signature ops are exactly the named leaves a caller supplies or keeps.
    EXPECT_EQ(info.has(kSignature), op == Op::Input || op == Op::Parameter || op == Op::State);
    EXPECT_EQ(info.cost == OpCost::Free, info.kind == OpKind::Leaf);
  }
}

// Arguments for op_semantics.h's kernels: values by position, affine terms
// of coefficient 1 over every argument.
struct Args {
  std::vector<double> v;
  double x(std::size_t k) const { return v[k]; }
  std::size_t count() const { return v.size(); }
  double temperature() const { return 1.0; }
  static double greater(double x, double y, double t) { return sem::Contract::greater(x, y, t); }
  static double equal(double x, double y, double t) { return sem::Contract::equal(x, y, t); }
  std::size_t terms() const { return v.size(); }
  double coef(std::size_t) const { return 1.0; }
  std::size_t term_arg(std::size_t j) const { return j; }
  bool has_bias() const { return false; }
  double bias() const { return 0.0; }
  double round(double r) const { return r; }
};

// kKeepsNonFinite (read by the batch plan: such an op's arguments need no
// test of their own) holds exactly when no argument position can turn an
// inf or NaN into a finite result, in either form of the op. Select is lazy
// and handled apart by the plan; leaves and calls are not kernels.
TEST(OpColumns, KeepsNonFiniteMatchesTheKernels) {
  const double bad[] = {HUGE_VAL, -HUGE_VAL, std::nan("")};
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    const OpInfo& info = op_info(op);
    // A raise has no arguments to be non-finite.
    if (info.kind == OpKind::Leaf || op == Op::Call || op == Op::Select || op == Op::Raise) continue;
    SCOPED_TRACE(std::string(op_name(op)));
    // Small valid argument lists: gather (index 0, two values), one-hot (1 0 | two values), others all 1.
    std::vector<std::vector<double>> bases;
    if (op == Op::Gather) bases = {{0, 1, 1}};
    else if (op == Op::GatherOneHot) bases = {{1, 0, 1, 1}};
    else {
      const auto n = static_cast<std::size_t>(std::max(info.min_args, info.max_args >= 0 ? info.max_args : 2));
      bases = {std::vector<double>(n, 1.0), std::vector<double>(n, -1.0)};
    }
    bool launders = false;
    for (const auto& base : bases)
      for (std::size_t k = 0; k < base.size(); ++k)
        for (double b : bad)
          for (bool exact : {true, false}) {
            Args a{base};
            a.v[k] = b;
            double r = 0.0;
            if (!sem::value(op, exact, a, r) && std::isfinite(r)) launders = true;
          }
    EXPECT_EQ(info.has(kKeepsNonFinite), !launders)
        << "a non-finite argument " << (launders ? "can give" : "never gives") << " a finite result";
  }
}

}  // namespace
}  // namespace tc
