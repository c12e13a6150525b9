// Interval analysis: per-op intervals, every warning kind, and soundness
// (every value the evaluator computes lies in its node's interval) over
// random programs and the corpus.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

#include "ir/builder.h"
#include "passes/analyze.h"
#include "passes_util.h"

namespace tc {
namespace {

Program build(Builder& b, Arg result) {
  auto p = b.build(result);
  TC_ASSERT(p.ok());
  return std::move(*p);
}

Analysis run(const Program& p, const AnalyzeOptions& o = {}) {
  auto a = analyze(p, o);
  TC_ASSERT(a.ok());
  return std::move(*a);
}

Interval iv(const Analysis& a, Value v) { return a.intervals[static_cast<std::size_t>(v.id())]; }

std::vector<std::string> messages(const Analysis& a, NodeId node) {
  std::vector<std::string> out;
  for (const auto& w : a.warnings)
    if (w.node == node) out.push_back(w.message);
  return out;
}

bool has_warning(const Analysis& a, NodeId node, std::string_view prefix) {
  for (const auto& m : messages(a, node))
    if (m.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(Interval, IntegerArithmeticIsExactAndFloatingIsOutward) {
  Interval a = Interval::of(-128, 127, true);
  EXPECT_EQ(ival::add(a, Interval::point(1)), Interval::of(-127, 128, true));
  EXPECT_EQ(ival::mul(a, Interval::point(-2)), Interval::of(-254, 256, true));
  Interval s = ival::add(Interval::point(0.1), Interval::point(0.2));
  EXPECT_LT(s.lo, 0.1 + 0.2);
  EXPECT_GT(s.hi, 0.1 + 0.2);
  EXPECT_LE(s.hi - s.lo, 2 * (std::nextafter(0.3, 1.0) - 0.3) * 2);
  // Zero times an unbounded end is zero (the values themselves are finite).
  EXPECT_EQ(ival::mul(Interval::of(0, 1), Interval::everything()), Interval::everything());
  Interval zero = ival::mul(Interval::point(0), Interval::everything());
  EXPECT_EQ(zero.lo, 0.0);
  EXPECT_EQ(zero.hi, 0.0);
}

TEST(Interval, DivisionAvoidsTheZeroDivisor) {
  // Integer divisors in [-2, 3] without 0: [-2, -1] and [1, 3].
  Interval q = ival::div(Interval::of(1, 6, true), Interval::of(-2, 3, true));
  EXPECT_EQ(q.lo, -6);
  EXPECT_EQ(q.hi, 6);
  EXPECT_FALSE(q.integral);
  EXPECT_EQ(ival::floordiv(Interval::of(-7, 7, true), Interval::point(2)), Interval::of(-4, 3, true));
  EXPECT_EQ(ival::mod(Interval::of(-7, 7, true), Interval::point(3)), Interval::of(0, 2, true));
  EXPECT_EQ(ival::mod(Interval::of(0, 4, true), Interval::point(10)), Interval::of(0, 4, true));
  EXPECT_EQ(ival::mod(Interval::of(-7, 7, true), Interval::point(-3)), Interval::of(-2, 0, true));
  EXPECT_EQ(ival::div(Interval::of(-1, 1), Interval::of(-1, 1)), Interval::everything());
}

TEST(Interval, SigmoidAndFloat32Rounding) {
  Interval s = ival::sigmoid(Interval::everything());
  EXPECT_EQ(s.lo, 0.0);
  EXPECT_EQ(s.hi, 1.0);
  Interval f = ival::round_f32(Interval::of(0.1, 0.1));
  EXPECT_LT(f.lo, 0.1);
  EXPECT_GT(f.hi, 0.1);
  EXPECT_EQ(f.lo, static_cast<double>(static_cast<float>(f.lo)));
  EXPECT_EQ(f.hi, static_cast<double>(static_cast<float>(f.hi)));
  EXPECT_EQ(ival::round_f32(Interval::of(0, 1e39)).hi, INFINITY);
}

TEST(Analyze, ContractExample) {
  // `10 if a > 4 else 12` with a in int32:-128:127.
  Builder b;
  Value a = b.input("a", Domain::int32(-128, 127));
  Value gt = a > 4;
  Program p = build(b, b.select(gt, 10, 12));
  Analysis r = run(p);
  EXPECT_EQ(iv(r, a), Interval::of(-128, 127, true));
  EXPECT_EQ(iv(r, gt), Interval::of(0, 1, true));
  EXPECT_EQ(r.output(p, "result"), Interval::of(10, 12, true));
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Analyze, DecidedComparisonsPickOneBranch) {
  Builder b;
  Value a = b.input("a", Domain::int32(5, 9));
  Value x = b.input("x", Domain::float64(-1, 1));
  Value s = b.select(a > 4, x * 2.0, a);
  Program p = build(b, s);
  Analysis r = run(p);
  EXPECT_EQ(iv(r, s), Interval::of(-2, 2, false));
}

TEST(Analyze, ParametersUseTheirValueUnlessFreed) {
  Builder b;
  Value x = b.input("x", Domain::int32(0, 10));
  Value w = b.parameter("w", 0.5);
  Program p = build(b, w * x);
  EXPECT_EQ(run(p).output(p, "result"), Interval::of(0, 5));
  AnalyzeOptions o;
  o.params["w"] = -1;
  EXPECT_EQ(run(p, o).output(p, "result"), Interval::of(-10, 0, true));
  o.free_parameters = true;
  EXPECT_EQ(run(p, o).output(p, "result"), Interval::everything());
  o.params["nope"] = 1;
  EXPECT_FALSE(analyze(p, o).ok());
}

TEST(Analyze, RelaxedComparisonsAreContinuous) {
  Builder b(Semantics::Relaxed);
  Value a = b.input("a", Domain::int32(5, 9));
  Value gt = a > 4;
  Program p = build(b, b.select(gt, 10, 12));
  Analysis r = run(p);
  EXPECT_EQ(iv(r, gt), Interval::unit(false));
  EXPECT_LE(r.output(p, "result").lo, 10.0);
  EXPECT_GE(r.output(p, "result").hi, 12.0);
}

TEST(Analyze, Float32IntervalsAreBinary32) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x", Domain::float32(0, 1));
  Value y = x * 0.1;
  Program p = build(b, y);
  Interval r = run(p).output(p, "result");
  EXPECT_EQ(r.lo, 0.0);
  EXPECT_EQ(r.hi, static_cast<double>(static_cast<float>(r.hi)));
  EXPECT_GE(r.hi, round_f32(0.1));
}

TEST(AnalyzeWarnings, DivisionByZero) {
  Builder b;
  Value x = b.input("x", Domain::float64(-1, 1));
  Value a = b.input("a", Domain::int32(-1, 1));
  Value d = x / a;
  Value safe = x / (a + 2);
  Value m = b.op("mod", a, a);
  Program p = build(b, d + safe + m);
  Analysis r = run(p);
  EXPECT_EQ(messages(r, d.id()), std::vector<std::string>{std::string(kWarnDivisionByZero)});
  EXPECT_TRUE(messages(r, safe.id()).empty());
  EXPECT_TRUE(has_warning(r, m.id(), kWarnDivisionByZero));
  EXPECT_EQ(iv(r, d), Interval::of(-1, 1));  // only the nonzero divisors -1 and 1 succeed
}

TEST(AnalyzeWarnings, IndexOutOfRangeAndNotInteger) {
  Builder b;
  Value i = b.input("i", Domain::int32(0, 5));
  Value x = b.input("x", Domain::float64(0, 4));
  Value g1 = b.gather({10, 20, 30}, i);
  Value g2 = b.gather({10, 20, 30}, b.op("mod", i, 3));
  Value g3 = b.gather({10, 20, 30}, x / 2.0);
  Program p = build(b, g1 + g2 + g3);
  Analysis r = run(p);
  EXPECT_TRUE(has_warning(r, g1.id(), kWarnIndexRange));
  EXPECT_FALSE(has_warning(r, g1.id(), kWarnIndexInteger));
  EXPECT_TRUE(messages(r, g2.id()).empty());
  EXPECT_EQ(iv(r, g2), Interval::of(10, 30, true));
  EXPECT_TRUE(has_warning(r, g3.id(), kWarnIndexInteger));
  EXPECT_FALSE(has_warning(r, g3.id(), kWarnIndexRange));
}

TEST(AnalyzeWarnings, OneHotSelection) {
  Builder b;
  Value i = b.input("i", Domain::int32(0, 2));
  Value s0 = b.input("s0", Domain::boolean()), s1 = b.input("s1", Domain::boolean());
  auto sel = b.one_hot(i, 3);
  Value proven = b.gather_one_hot({sel[0], sel[1], sel[2]}, {1, 2, 3});
  Value unproven = b.gather_one_hot({s0, s1}, {1, 2});
  Program p = build(b, proven + unproven);
  Analysis r = run(p);
  EXPECT_TRUE(messages(r, proven.id()).empty());
  EXPECT_EQ(iv(r, proven), Interval::of(1, 3, true));
  EXPECT_TRUE(has_warning(r, unproven.id(), kWarnOneHot));
}

TEST(AnalyzeWarnings, StateUpdateOutsideItsDomain) {
  Builder b;
  Value e = b.input("event", Domain::int32(0, 1));
  Value count = b.state("count", 0, Domain::int32(0, 100));
  b.update(count, count + e);
  Program p = build(b, count);
  Analysis r = run(p);
  ASSERT_TRUE(has_warning(r, count.id(), kWarnStateDomain)) << r.warnings.size();
  EXPECT_NE(messages(r, count.id())[0].find("int32:0:100"), std::string::npos);

  Builder c;
  Value e2 = c.input("event", Domain::int32(0, 1));
  Value s = c.state("count", 0, Domain::int32(0, 100));
  c.update(s, c.op("mod", s + e2, 101));  // wraps around: provably inside
  Program q = build(c, s);
  EXPECT_TRUE(run(q).warnings.empty());
}

TEST(AnalyzeWarnings, Overflow) {
  Builder b;
  Value x = b.input("x");  // every finite float64
  Value sq = x * x;
  Value y = b.input("y", Domain::float64(-1e3, 1e3));
  Value fine = y * y;
  Program p = build(b, sq + fine);
  Analysis r = run(p);
  EXPECT_TRUE(has_warning(r, sq.id(), kWarnOverflow));
  EXPECT_TRUE(messages(r, fine.id()).empty());
  EXPECT_EQ(r.intervals[static_cast<std::size_t>(sq.id())].hi, INFINITY);
}

TEST(AnalyzeWarnings, NodeDomain) {
  Builder b;
  Value a = b.input("a", Domain::int32(0, 10));
  Value sum = a + 1;
  b.set_domain(sum, Domain::int32(0, 10));
  Value half = a / 2.0;
  b.set_domain(half, Domain::int32(0, 10));
  Value ok = a * 1;
  b.set_domain(ok, Domain::int32(0, 10));
  Program p = build(b, sum + half + ok);
  Analysis r = run(p);
  EXPECT_TRUE(has_warning(r, sum.id(), kWarnNodeDomain));
  EXPECT_TRUE(has_warning(r, half.id(), kWarnNodeDomain));  // may not be an integer
  EXPECT_TRUE(messages(r, ok.id()).empty());
  // Values that pass the check are inside the domain.
  EXPECT_EQ(iv(r, sum), Interval::of(1, 10, true));
}

TEST(AnalyzeWarnings, LeafDomainsDoNotNarrow) {
  // The evaluator does not check a constant's domain, so the analysis must
  // not pretend the value is inside it.
  Builder b;
  Value x = b.input("x", Domain::int32(0, 1));
  Value k = b.constant(300);
  b.set_domain(k, Domain::int32(0, 127));
  Program p = build(b, x + k);
  Analysis r = run(p);
  EXPECT_EQ(iv(r, k), Interval::point(300));
  EXPECT_EQ(r.output(p, "result"), Interval::of(300, 301, true));
}

TEST(AnalyzeWarnings, NodesThatNeverRunAreQuiet) {
  Builder b;
  Value x = b.input("x", Domain::float64(-1, 1));
  (void)(x / x);  // dead
  Program p = build(b, x + 1);
  EXPECT_TRUE(run(p).warnings.empty());
}

TEST(AnalyzeWarnings, BranchesRuledOutByTheConditionAreQuiet) {
  Builder b;
  Value a = b.input("a", Domain::int32(1, 9));
  Value x = b.input("x", Domain::float64(-1, 1));
  Value never = x / (a - a);          // only in the branch a <= 0 would take
  Value maybe = x / (a - 5);          // in a branch that can run
  Value s1 = b.select(a > 0, x, never);
  Value s2 = b.select(a > 2, maybe, x);
  Program p = build(b, s1 + s2);
  Analysis r = run(p);
  EXPECT_TRUE(messages(r, never.id()).empty());
  EXPECT_TRUE(has_warning(r, maybe.id(), kWarnDivisionByZero));
}

TEST(AnalyzeGuards, GuardedDivisionIsQuiet) {
  // `0.0 if b == 0 else x / b`, lowered as the frontend does (not = eq(c, 0)).
  Builder b;
  Value x = b.input("x", Domain::float64(-4, 4));
  Value d = b.input("b", Domain::int32(-2, 2));
  Value q = x / d;
  Value r = b.select(b.op("eq", b.op("eq", d, 0), 0), q, 0.0);
  Program p = build(b, r);
  Analysis a = run(p);
  EXPECT_TRUE(messages(a, q.id()).empty());
  EXPECT_EQ(iv(a, q), Interval::of(-4, 4));
  // A guard that does not exclude zero (here b != 1) leaves the warning.
  Builder c;
  Value x2 = c.input("x", Domain::float64(-4, 4));
  Value d2 = c.input("b", Domain::int32(-2, 2));
  Value q2 = x2 / d2;
  Program p2 = build(c, c.select(c.op("eq", d2, 1), 0.0, q2));
  EXPECT_TRUE(has_warning(run(p2), q2.id(), kWarnDivisionByZero));
}

TEST(AnalyzeGuards, AndGuardNarrowsTheIndex) {
  // `arr[a] if 0 <= a < 3 else -1`, with `and` as select(c1, c2, 0).
  Builder b;
  Value a = b.input("a", Domain::int32(-6, 6));
  Value in_range = b.select(b.op("le", 0, a), b.op("lt", a, 3), 0);
  Value g = b.gather({3, 1, 4}, a);
  Value r = b.select(in_range, g, -1);
  Program p = build(b, r);
  Analysis an = run(p);
  EXPECT_TRUE(messages(an, g.id()).empty());
  EXPECT_EQ(iv(an, g), Interval::of(1, 4, true));
  EXPECT_EQ(an.output(p, "result"), Interval::of(-1, 4, true));
}

TEST(AnalyzeGuards, BranchValuesUseTheirCondition) {
  // abs(a) as select(a < 0, -a, a): both branches are non-negative.
  Builder b;
  Value a = b.input("a", Domain::int32(-5, 3));
  Value r = b.select(a < 0, -a, a);
  Program p = build(b, r);
  EXPECT_EQ(run(p).output(p, "result"), Interval::of(0, 5, true));
}

TEST(AnalyzeGuards, ComparisonsOfTwoNodesNarrowBoth) {
  // max(a, b) as select(a >= b, a, b): at least max(a.lo, b.lo).
  Builder b;
  Value a = b.input("a", Domain::int32(0, 10));
  Value c = b.input("b", Domain::int32(5, 6));
  Program p = build(b, b.select(a >= c, a, c));
  EXPECT_EQ(run(p).output(p, "result"), Interval::of(5, 10, true));
}

TEST(AnalyzeGuards, SharedNodesAreNotNarrowed) {
  // x / b is also an output, so it runs whatever the guard says: it warns.
  Builder b;
  Value x = b.input("x", Domain::float64(-4, 4));
  Value d = b.input("b", Domain::int32(-2, 2));
  Value q = x / d;
  auto p = b.build({{"result", b.select(b.op("ne", d, 0), q, 0.0)}, {"raw", q}});
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(has_warning(run(*p), q.id(), kWarnDivisionByZero));
}

TEST(AnalyzeGuards, DeeplyNestedGuardsStayCheap) {
  // 20,000 nested `x if x < k else ...`: the refinement work is capped.
  Builder b;
  Value x = b.input("x", Domain::int32(-100000, 100000));
  Value acc = x;
  for (int k = 0; k < 20000; ++k) acc = b.select(x < k, acc + 1, acc);
  Program p = build(b, acc);
  auto a = analyze(p);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->output(p, "result").contains(-100000 + 20000));
  // "Cheap": the refinement did work, and at most its linear budget (plus
  // the members it revisits and facts it copies, each bounded the same way).
  EXPECT_GT(a->refinement_work, 0u);
  EXPECT_LE(a->refinement_work, 3 * refinement_budget(p.nodes.size())) << p.nodes.size() << " nodes";
}

TEST(AnalyzeSoundness, RandomPrograms) {
  std::mt19937_64 rng(4242);
  int values = 0;
  for (int k = 0; k < 400; ++k) {
    Program p = testing::random_program(rng);
    Analysis a = run(p);
    auto bad = testing::check_soundness(p, a, testing::sample_envs(p, rng, 40), &values);
    ASSERT_FALSE(bad) << "program " << k << ": " << *bad;
  }
  EXPECT_GT(values, 50000);
}

TEST(AnalyzeWarnings, ForeseeEveryRuntimeErrorOfRandomPrograms) {
  // Relaxed forms have their own failure (all gather weights underflowing)
  // that the analysis does not model, so exact and hybrid programs only.
  std::mt19937_64 rng(77);
  int failures = 0;
  for (int k = 0; k < 300; ++k) {
    testing::RandomProgramOptions o;
    o.allow_relaxed = false;
    Program p = testing::random_program(rng, o);
    Analysis a = run(p);
    auto bad = testing::check_errors_foreseen(p, a, testing::sample_envs(p, rng, 30), &failures);
    ASSERT_FALSE(bad) << "program " << k << ": " << *bad;
  }
  EXPECT_GT(failures, 200);
}

TEST(AnalyzeWarnings, ForeseeEveryRuntimeErrorOfTheCorpus) {
  auto corpus = testing::load_corpus();
  ASSERT_FALSE(corpus.empty()) << "no programs under tests/data/corpus: a broken data path";
  std::mt19937_64 rng(5);
  int failures = 0;
  for (const auto& entry : corpus) {
    auto c = compile_python(entry.source, entry.options);
    if (!c) continue;
    Analysis a = run(c->program);
    auto bad = testing::check_errors_foreseen(c->program, a, testing::sample_envs(c->program, rng, 300), &failures);
    EXPECT_FALSE(bad) << entry.name << ": " << *bad;
  }
  EXPECT_GT(failures, 0);
}

TEST(AnalyzeSoundness, Corpus) {
  auto corpus = testing::load_corpus();
  ASSERT_FALSE(corpus.empty()) << "no programs under tests/data/corpus: a broken data path";
  std::mt19937_64 rng(1);
  int values = 0, compiled = 0;
  for (const auto& entry : corpus) {
    auto c = compile_python(entry.source, entry.options);
    if (!c) continue;  // compile failures are reported by the optimize corpus test
    ++compiled;
    Analysis a = run(c->program);
    auto bad = testing::check_soundness(c->program, a, testing::sample_envs(c->program, rng, 200), &values);
    EXPECT_FALSE(bad) << entry.name << ": " << *bad;
  }
  EXPECT_GT(compiled, 0);
  EXPECT_GT(values, 1000);
}

}  // namespace
}  // namespace tc
