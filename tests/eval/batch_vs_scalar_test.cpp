// The batched fast path must agree exactly with the scalar checked
// evaluator: same failing cases, same messages, bit-identical outputs and
// next state. Random Builder programs (every op, all semantics, both dtypes,
// state, bindings, per-node semantics) are run on random cases, many of which
// raise, and several of which span more than one block.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

using testing::same_bits;

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(std::uint64_t seed) : rng(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  double real(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
  bool chance(double p) { return real(0, 1) < p; }
};

Bindings test_bindings() {
  Bindings b;
  // Finite for small arguments, infinite (an error) beyond 50.
  b["steep"].forward = [](std::span<const double> a) { return a[0] > 50 ? INFINITY : a[0] * 2 + a.size(); };
  return b;
}

/// A random program over inputs x (float64), n (int32 -4..4) and c (bool).
Program random_program(Gen& g, Semantics sem, Dtype dtype, bool with_state) {
  Builder b(sem, Surrogate::Sigmoid, g.chance(0.5) ? 1.0 : 0.3, dtype);
  std::vector<Value> pool;
  Value x = b.input("x", Domain::float64(-20, 20));
  Value n = b.input("n", Domain::int32(-4, 4));
  Value c = b.input("c", Domain::boolean());
  pool = {x, n, c};
  if (g.chance(0.5)) pool.push_back(b.parameter("w", 1.5));
  Value s;
  if (with_state) {
    s = b.state("s", 1, Domain::float64(-1e6, 1e6));
    pool.push_back(s);
  }
  const int steps = 4 + g.pick(30);
  for (int i = 0; i < steps; ++i) {
    auto any = [&] { return pool[static_cast<std::size_t>(g.pick(static_cast<int>(pool.size())))]; };
    auto recent = [&] {
      const int sz = static_cast<int>(pool.size());
      return pool[static_cast<std::size_t>(std::max(0, sz - 1 - g.pick(std::min(sz, 4))))];
    };
    b.set_location(SourceLoc{i + 1, 5});
    // Denominators are usually shifted off the common zeros (bool inputs,
    // comparison results) so that division by zero stays a minority.
    auto denom = [&]() -> Value { return g.chance(0.75) ? any() + 0.37 : any(); };
    Value v;
    switch (g.pick(20)) {
      case 0: v = recent() + any(); break;
      case 1: v = recent() - any(); break;
      case 2: v = recent() * any(); break;
      case 3: v = recent() / denom(); break;  // division by zero on some cases
      case 4: v = b.op("floordiv", recent(), denom()); break;
      case 5: v = b.op("mod", recent(), denom()); break;
      case 6: v = b.op(std::vector<std::string>{"lt", "le", "gt", "ge", "eq", "ne"}[static_cast<std::size_t>(g.pick(6))],
                       recent(), any());
        break;
      case 7: case 8: v = b.select(any(), recent(), any()); break;
      case 9: v = -recent(); break;
      case 10: v = b.relu(recent()); break;
      case 11: v = b.sigmoid(recent()); break;
      case 12: v = b.gather({any(), recent(), any()}, g.chance(0.7) ? Arg(n + 1) : Arg(any())); break;
      case 13: {
        auto sel = b.one_hot(g.chance(0.8) ? Arg(n) : Arg(any()), 3);
        v = b.gather_one_hot({sel[0], sel[1], sel[2]}, {any(), recent(), any()});
        break;
      }
      case 14: v = b.affine({recent(), any(), any()}, {0.5, -1.25, 3}, g.chance(0.5) ? std::optional<double>(0.1) : std::nullopt); break;
      case 15: v = b.sparse_affine({any(), recent(), any()}, {1, 2}, {2.5, -0.1}); break;
      case 16: v = b.call("steep", {recent()}); break;
      case 17: v = recent() * (g.chance(0.3) ? 1e160 : 3.0); break;  // overflows on some cases
      case 18: {
        v = recent() + g.real(-3, 3);
        if (g.chance(0.5)) b.set_domain(v, Domain::float64(-10, 10));  // a checked intermediate domain
        break;
      }
      default: v = b.constant(g.real(-2, 2)); break;
    }
    pool.push_back(v);
  }
  if (with_state) b.update(s, pool.back());
  std::vector<std::pair<std::string, Arg>> outs;
  const int nout = 1 + g.pick(3);
  for (int k = 0; k < nout; ++k) {
    const int sz = static_cast<int>(pool.size());
    outs.emplace_back("out" + std::to_string(k), pool[static_cast<std::size_t>(sz - 1 - g.pick(std::min(sz, 6)))]);
  }
  auto p = b.build(outs);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? std::move(p.value()) : Program{};
}

/// Every field of two batch results, bit for bit.
void expect_same_batch(const BatchResult& a, const BatchResult& b, const std::string& what) {
  ASSERT_EQ(a.count, b.count) << what;
  ASSERT_EQ(a.failed, b.failed) << what;
  ASSERT_EQ(a.outputs.size(), b.outputs.size()) << what;
  ASSERT_EQ(a.next_state.size(), b.next_state.size()) << what;
  for (std::size_t o = 0; o < a.outputs.size(); ++o)
    for (std::size_t i = 0; i < a.count; ++i)
      ASSERT_TRUE(same_bits(a.outputs[o][i], b.outputs[o][i])) << what << ": case " << i << " output " << o;
  for (std::size_t u = 0; u < a.next_state.size(); ++u)
    for (std::size_t i = 0; i < a.count; ++i)
      ASSERT_TRUE(same_bits(a.next_state[u][i], b.next_state[u][i])) << what << ": case " << i << " update " << u;
  ASSERT_EQ(a.errors.size(), b.errors.size()) << what;
  for (std::size_t e = 0; e < a.errors.size(); ++e) {
    EXPECT_EQ(a.errors[e].first, b.errors[e].first) << what;
    EXPECT_EQ(a.errors[e].second.message, b.errors[e].second.message) << what;
    EXPECT_EQ(a.errors[e].second.node, b.errors[e].second.node) << what;
  }
}

struct Tally {
  std::size_t cases = 0, failures = 0;
};

void compare_paths(const Program& p, Gen& g, std::size_t count, const EvalOptions& opts, Tally& tally) {
  auto ev = Evaluator::create(p, opts);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  std::vector<std::vector<double>> cols(3, std::vector<double>(count));
  for (std::size_t i = 0; i < count; ++i) {
    cols[0][i] = g.chance(0.1) ? 0.0 : g.chance(0.2) ? std::round(g.real(-5, 5)) : g.real(-20, 20);
    cols[1][i] = g.pick(9) - 4;
    cols[2][i] = g.pick(2);
    if (g.chance(0.02)) cols[static_cast<std::size_t>(g.pick(3))][i] = 7.5;  // outside / fractional: input error
  }
  // input_ids are ascending: x, n, c in creation order.
  std::vector<std::span<const double>> spans(cols.begin(), cols.end());
  Env fixed;
  if (p.find_named(Op::State, "s")) fixed.state["s"] = 2.5;
  BatchResult br;
  ASSERT_TRUE(ev->run_batch(spans, count, fixed, br).ok());
  ASSERT_EQ(br.count, count);
  std::size_t err_i = 0, failures = 0;
  for (std::size_t i = 0; i < count; ++i) {
    Env env = fixed;
    env.inputs = {{"x", cols[0][i]}, {"n", cols[1][i]}, {"c", cols[2][i]}};
    auto r = ev->run(env);
    ASSERT_EQ(br.failed[i] != 0, !r.ok()) << "case " << i << ": "
                                           << (r.ok() ? "scalar ok, batch failed: " +
                                                            (err_i < br.errors.size() ? br.errors[err_i].second.message : "")
                                                      : "scalar failed: " + r.error().message);
    if (!r.ok()) {
      ++failures;
      ASSERT_LT(err_i, br.errors.size());
      EXPECT_EQ(br.errors[err_i].first, i);
      EXPECT_EQ(br.errors[err_i].second.message, r.error().message);
      EXPECT_EQ(br.errors[err_i].second.node, r.error().node);
      ++err_i;
      continue;
    }
    for (std::size_t o = 0; o < r->outputs.size(); ++o)
      ASSERT_TRUE(same_bits(br.outputs[o][i], r->outputs[o])) << "case " << i << " output " << o << ": "
                                                              << br.outputs[o][i] << " vs " << r->outputs[o];
    for (std::size_t u = 0; u < r->next_state.size(); ++u)
      ASSERT_TRUE(same_bits(br.next_state[u][i], r->next_state[u])) << "case " << i;
  }
  EXPECT_EQ(err_i, br.errors.size());
  // Several workers (and every core) give the same result, in the same order.
  for (unsigned threads : {3u, 0u}) {
    BatchResult bt;
    ASSERT_TRUE(ev->run_batch(spans, count, fixed, bt, threads).ok());
    expect_same_batch(br, bt, std::to_string(threads) + " threads");
  }
  tally.cases += count;
  tally.failures += failures;
}

TEST(EvalBatchVsScalar, RandomProgramsAgreeCaseByCase) {
  const Bindings bindings = test_bindings();
  Gen g(20261129);
  std::size_t programs = 0;
  Tally tally;
  for (int round = 0; round < 240; ++round) {
    const Semantics sem = std::vector<Semantics>{Semantics::Exact, Semantics::Hybrid, Semantics::Relaxed}
        [static_cast<std::size_t>(round % 3)];
    const Dtype dtype = (round / 3) % 2 ? Dtype::Float32 : Dtype::Float64;
    Program p = random_program(g, sem, dtype, round % 5 == 0);
    SCOPED_TRACE("round " + std::to_string(round));
    EvalOptions opts;
    opts.bindings = &bindings;
    compare_paths(p, g, round % 7 == 0 ? 600 : 97, opts, tally);
    if (::testing::Test::HasFatalFailure()) return;
    ++programs;
  }
  EXPECT_EQ(programs, 240u);
  // The mix must exercise both outcomes substantially.
  EXPECT_GT(tally.failures, tally.cases / 20) << tally.failures << " of " << tally.cases;
  EXPECT_LT(tally.failures, tally.cases / 2) << tally.failures << " of " << tally.cases;
  std::printf("random programs: %zu cases, %zu raised\n", tally.cases, tally.failures);
}

// Chains of products feeding additions and subtractions, which the batch
// plan computes as fused steps (s + x*y, s - x*y, x*y - s) with every mix of
// column and uniform operands, in both dtypes, some with a domain on the sum.
TEST(EvalBatchVsScalar, FusedProductSumsAgree) {
  const Bindings bindings = test_bindings();
  Gen g(4242);
  Tally tally;
  for (int round = 0; round < 40; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, round % 2 ? Dtype::Float32 : Dtype::Float64);
    Value x = b.input("x", Domain::float64(-20, 20));
    Value n = b.input("n", Domain::int32(-4, 4));
    Value c = b.input("c", Domain::boolean());
    Value w = b.parameter("w", 0.75);
    std::vector<Value> operands = {x, n, c, w};
    Value s = g.chance(0.5) ? b.constant(0.5) : Value(x);
    for (int i = 0; i < 30; ++i) {
      auto operand = [&]() -> Value {
        if (g.chance(0.3)) return b.constant(g.real(-3, 3));
        return operands[static_cast<std::size_t>(g.pick(static_cast<int>(operands.size())))];
      };
      b.set_location(SourceLoc{i + 1, 3});
      Value prod = operand() * (g.chance(0.2) ? s : operand());
      switch (g.pick(4)) {
        case 0: s = s + prod; break;
        case 1: s = prod + s; break;
        case 2: s = s - prod; break;
        default: s = prod - s; break;
      }
      if (g.chance(0.1)) b.set_domain(s, Domain::float64(-1e4, 1e4));
    }
    auto p = b.build(s);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EvalOptions opts;
    opts.bindings = &bindings;
    compare_paths(*p, g, 700, opts, tally);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(tally.failures, 0u);  // the domains and input errors do fail some cases
}

// Large batches (many blocks, so every worker gets several chunks) give
// bit-identical results and errors in case order for any thread count.
TEST(EvalBatchVsScalar, ThreadCountDoesNotChangeResults) {
  const Bindings bindings = test_bindings();
  Gen g(99);
  std::size_t failures = 0;
  for (int round = 0; round < 24; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Program p = random_program(g, round % 3 ? Semantics::Exact : Semantics::Relaxed,
                               round % 2 ? Dtype::Float32 : Dtype::Float64, round % 4 == 0);
    EvalOptions opts;
    opts.bindings = &bindings;
    auto ev = Evaluator::create(p, opts);
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    const std::size_t count = 20000 + static_cast<std::size_t>(g.pick(5000));
    std::vector<std::vector<double>> cols(3, std::vector<double>(count));
    for (std::size_t i = 0; i < count; ++i) {
      cols[0][i] = g.chance(0.1) ? 0.0 : g.real(-20, 20);
      cols[1][i] = g.pick(9) - 4;
      cols[2][i] = g.pick(2);
    }
    std::vector<std::span<const double>> spans(cols.begin(), cols.end());
    Env fixed;
    if (p.find_named(Op::State, "s")) fixed.state["s"] = 2.5;
    BatchResult one;
    ASSERT_TRUE(ev->run_batch(spans, count, fixed, one, 1).ok());
    failures += one.errors.size();
    for (unsigned threads : {2u, 5u, 0u}) {
      BatchResult many;
      ASSERT_TRUE(ev->run_batch(spans, count, fixed, many, threads).ok());
      expect_same_batch(one, many, std::to_string(threads) + " threads");
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  EXPECT_GT(failures, 1000u);  // errors from many chunks must be merged in order
}

TEST(EvalBatchVsScalar, IncludedRegionsKeepTheirSemantics) {
  const Bindings bindings = test_bindings();
  Gen g(7);
  Tally tally;
  for (int round = 0; round < 40; ++round) {
    Program inner = random_program(g, Semantics::Relaxed, Dtype::Float64, false);
    Builder b(Semantics::Exact);
    Value x = b.input("x", Domain::float64(-20, 20));
    Value n = b.input("n", Domain::int32(-4, 4));
    Value c = b.input("c", Domain::boolean());
    auto outs = b.include(inner, {{"x", x}, {"n", n}, {"c", c}}, "region");
    Value r = b.select(x > 0, outs.begin()->second, x / n);
    auto p = b.build(r);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EvalOptions opts;
    opts.bindings = &bindings;
    compare_paths(*p, g, 300, opts, tally);
    opts.semantics = Semantics::Relaxed;  // replaces the root only
    compare_paths(*p, g, 300, opts, tally);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace tc
