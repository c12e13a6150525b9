// The encoder against the op table and the evaluator:
//  - every op of ops.def is either encoded or refused with a located error
//    naming it (a new op missing from kExpected fails the walk);
//  - on random and edge arguments, encode op(x, y) = r with the inputs
//    pinned and ask Z3 whether anything but the evaluator's r (bit for bit,
//    the sign of zero included), or its failure, is a model: it must not be.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <z3++.h>

#include "base/number_text.h"
#include "eval/evaluator.h"
#include "ir/builder.h"
#include "prove/encode.h"

namespace tc {
namespace {

enum class Expect { Encoded, Refused };
// What the encoder does with each op (exact semantics). Refused ops have no
// exact encoding or take values from outside the circuit.
const std::map<std::string, Expect> kExpected = {
    {"input", Expect::Encoded},    {"parameter", Expect::Encoded}, {"constant", Expect::Encoded},
    {"state", Expect::Refused},    {"add", Expect::Encoded},       {"sub", Expect::Encoded},
    {"mul", Expect::Encoded},      {"div", Expect::Encoded},       {"neg", Expect::Encoded},
    {"floordiv", Expect::Encoded}, {"mod", Expect::Encoded},       {"lt", Expect::Encoded},
    {"le", Expect::Encoded},       {"gt", Expect::Encoded},        {"ge", Expect::Encoded},
    {"eq", Expect::Encoded},       {"ne", Expect::Encoded},        {"select", Expect::Encoded},
    {"relu", Expect::Encoded},     {"sigmoid", Expect::Refused},   {"gather", Expect::Encoded},
    {"gather_one_hot", Expect::Encoded}, {"affine", Expect::Encoded}, {"sparse_affine", Expect::Encoded},
    {"call", Expect::Refused},     {"square", Expect::Encoded},    {"raise", Expect::Encoded},
    {"sqrt", Expect::Encoded},     {"exp", Expect::Refused},       {"expm1", Expect::Refused},
    {"log", Expect::Refused},      {"log2", Expect::Refused},      {"log10", Expect::Refused},
    {"log1p", Expect::Refused},    {"sin", Expect::Refused},       {"cos", Expect::Refused},
    {"tan", Expect::Refused},      {"atan", Expect::Refused},      {"tanh", Expect::Refused},
};

/// A program whose output is one node of `op` over inputs a0.. (domain `d`).
Result<Program> single_op(Op op, Domain d, Dtype dtype, Semantics sem = Semantics::Exact) {
  Builder b(sem, Surrogate::Sigmoid, 1.0, dtype);
  b.set_location(SourceLoc{3, 7});
  const OpInfo& info = op_info(op);
  int nargs = op == Op::Gather ? 3 : op == Op::GatherOneHot ? 4 : std::max(info.min_args, 1);
  if (op == Op::Affine) nargs = 2;
  if (op == Op::SparseAffine) nargs = 3;
  std::vector<Arg> xs;
  if (!is_leaf(op) && op != Op::Call)
    for (int k = 0; k < nargs; ++k) xs.push_back(b.input("a" + std::to_string(k), d));
  Value r;
  switch (op) {
    case Op::Input: r = b.input("a0", d); break;
    case Op::Parameter: r = b.parameter("p", 1.5); break;
    case Op::Constant: r = b.constant(2.5); break;
    case Op::State: {
      r = b.state("s", 0, Domain::float64());
      b.update(r, r);
      break;
    }
    case Op::Call: r = b.call("host", {b.input("a0", d)}); break;
    case Op::Gather: r = b.gather({xs[1], xs[2]}, xs[0]); break;
    case Op::GatherOneHot: r = b.gather_one_hot({xs[0], xs[1]}, {xs[2], xs[3]}); break;
    case Op::Affine: r = b.affine(xs, {0.1, -3}, 0.25); break;
    case Op::SparseAffine: r = b.sparse_affine(xs, {0, 2}, {1.0, -3}, -0.25); break;
    // A raise is reached through a select: the cases with a0 < 0 fail.
    case Op::Raise: r = b.select(b.op("lt", xs[0], b.constant(0)), b.raise("ValueError: a0 is negative"), xs[0]); break;
    default: r = b.op(op, xs);
  }
  return b.build(r);
}

TEST(ProveEncode, EveryOpOfTheTableIsEncodedOrRefusedWithItsName) {
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    const std::string name(op_name(op));
    auto it = kExpected.find(name);
    ASSERT_NE(it, kExpected.end()) << "op '" << name << "' of ops.def is not classed by this test: encode it in "
                                   << "core/prove/encode.cpp (or refuse it there) and add it to kExpected";
    auto p = single_op(op, Domain::float64(), Dtype::Float64);
    ASSERT_TRUE(p) << name << ": " << p.error().message;
    z3::context c;
    prove::Encoder enc(c);
    auto t = enc.encode(*p);
    if (it->second == Expect::Encoded) {
      EXPECT_TRUE(t) << name << ": " << (t ? "" : t.error().message);
    } else {
      ASSERT_FALSE(t) << name << " was encoded but should be refused";
      EXPECT_NE(t.error().message.find("(" + name), std::string::npos) << t.error().message;
      EXPECT_TRUE(t.error().node.has_value()) << t.error().message;
      if (op != Op::State) {
        EXPECT_TRUE(t.error().loc.has_value()) << t.error().message;
      }
    }
  }
}

TEST(ProveEncode, RelaxedFormsWithoutExpAreRefusedByName) {
  for (Op op : {Op::Lt, Op::Eq, Op::Gather}) {
    auto p = single_op(op, Domain::float64(), Dtype::Float64, Semantics::Relaxed);
    ASSERT_TRUE(p) << p.error().message;
    z3::context c;
    prove::Encoder enc(c);
    auto t = enc.encode(*p);
    ASSERT_FALSE(t) << op_name(op);
    EXPECT_NE(t.error().message.find("relaxed"), std::string::npos) << t.error().message;
  }
  // Relaxed select and one-hot are products and sums: encoded.
  for (Op op : {Op::Select, Op::GatherOneHot}) {
    auto p = single_op(op, Domain::float64(), Dtype::Float64, Semantics::Relaxed);
    ASSERT_TRUE(p) << p.error().message;
    z3::context c;
    prove::Encoder enc(c);
    EXPECT_TRUE(enc.encode(*p)) << op_name(op);
  }
}

std::vector<double> edge_values(bool integral) {
  if (integral) return {0, 1, -1, 2, -2, 3, 7, -7, 2147483647, -2147483648.0, 46341, 65536, 16777217};
  return {0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 2.0, 3.0, 1e308, -1e308, 5e-324, 2.2250738585072014e-308,
          1.7976931348623157e308, 0.1, 1e-300, 3.4028235e38, 1e39, 16777217.0, 9007199254740993.0, 7.0, -7.0};
}

double draw(std::mt19937_64& rng, bool integral, const std::vector<double>& edges) {
  if (rng() % 3 == 0) return edges[rng() % edges.size()];
  if (integral) return static_cast<double>(static_cast<std::int32_t>(rng() % 41) - 20);
  // Random bits of a finite double, or a short decimal.
  if (rng() % 2 == 0) {
    std::uint64_t bits = rng();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isfinite(v)) return v;
  }
  return static_cast<double>(static_cast<std::int64_t>(rng() % 2001) - 1000) / 8.0;
}

/// Pins every input to `xs`, then asks whether the program can do anything
/// but what the evaluator did. Returns "" when it cannot, else the story.
std::string disagreement(const Program& p, const std::vector<double>& xs) {
  EvalOptions eo;
  eo.plan = EvalPlan::Interpreter;
  auto ev = Evaluator::create(p, eo);
  if (!ev) return "evaluator: " + ev.error().message;
  Env env;
  for (std::size_t k = 0; k < xs.size(); ++k) env.inputs["a" + std::to_string(k)] = xs[k];
  auto r = ev->run(env);
  z3::context c;
  prove::Encoder enc(c);
  auto t = enc.encode(p);
  if (!t) return "encoder: " + t.error().message;
  z3::solver s(c, "QF_FPBV");
  s.add(enc.domains());
  for (const auto& [name, in] : enc.inputs()) {
    const double v = env.inputs.at(name);
    if (in.domain.is_integral()) s.add(in.var == c.bv_val(static_cast<int>(v), 32));
    else s.add(in.var == prove::fp_constant(c, v, in.domain.type == DomainType::Float32));
  }
  if (r) s.add(t->fails || t->outputs[0] != prove::fp_constant(c, r->outputs[0], false));
  else s.add(!t->fails);
  const auto answer = s.check();
  if (answer == z3::unsat) return "";
  std::string story = "inputs";
  for (double x : xs) story += " " + shortest_number(x);
  story += r ? ": evaluator " + shortest_number(r->outputs[0]) : ": evaluator fails (" + r.error().message + ")";
  if (answer == z3::sat) {
    const z3::model m = s.get_model();
    const bool fails = m.eval(t->fails, true).is_true();
    story += fails ? ", encoding fails" : ", encoding gives " + std::to_string(prove::fp_numeral_value(m.eval(t->outputs[0], true)));
  } else {
    story += ", z3 unknown: " + s.reason_unknown();
  }
  return story;
}

struct Sweep {
  Dtype dtype;
  bool integral;
};

TEST(ProveEncode, AgreesWithTheEvaluatorOnRandomSingleOps) {
  const std::vector<Op> ops = {Op::Add, Op::Sub,  Op::Mul, Op::Div, Op::Neg,    Op::Square,       Op::Relu,
                               Op::Lt,  Op::Le,   Op::Gt,  Op::Ge,  Op::Eq,     Op::Ne,           Op::Select,
                               Op::Gather, Op::GatherOneHot, Op::Affine, Op::SparseAffine, Op::FloorDiv, Op::Mod,
                               Op::Raise};
  std::mt19937_64 rng(20261207);
  int checked = 0;
  for (Sweep sw : {Sweep{Dtype::Float64, false}, Sweep{Dtype::Float32, false}, Sweep{Dtype::Float64, true},
                   Sweep{Dtype::Float32, true}}) {
    const Domain d = sw.integral ? Domain::int32() : Domain::float64();
    const auto edges = edge_values(sw.integral);
    for (Op op : ops) {
      auto p = single_op(op, d, sw.dtype);
      ASSERT_TRUE(p) << p.error().message;
      const int nargs = static_cast<int>(p->nodes_of(Op::Input).size());
      // The expensive remainder (floordiv, mod) gets fewer cases.
      const int cases = (op == Op::FloorDiv || op == Op::Mod) ? 3 : 6;
      for (int k = 0; k < cases; ++k) {
        std::vector<double> xs;
        for (int a = 0; a < nargs; ++a) xs.push_back(draw(rng, sw.integral, edges));
        // Gather's index and one-hot's selectors: mostly valid ones.
        if (op == Op::Gather && rng() % 2) xs[0] = static_cast<double>(rng() % 2);
        if (op == Op::GatherOneHot && rng() % 2) {
          xs[0] = static_cast<double>(rng() % 2);
          xs[1] = 1 - xs[0];
        }
        EXPECT_EQ(disagreement(*p, xs), "") << op_name(op) << " dtype " << to_string(sw.dtype)
                                             << (sw.integral ? " int32" : " float64");
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 400);
}

TEST(ProveEncode, Float32InputsAndItsDomainBounds) {
  // A float32 domain: the input enters as its binary32 value; a bound that
  // is not a binary32 (0.1) still admits the value it rounds to.
  Builder b;
  auto x = b.input("a0", Domain::float32(0.1, 0.5));
  auto p = b.build(x * 3.0);
  ASSERT_TRUE(p);
  for (double v : {0.1, 0.3, 0.5, 0.2}) EXPECT_EQ(disagreement(*p, {v}), "") << v;
}

}  // namespace
}  // namespace tc
