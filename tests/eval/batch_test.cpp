// Edge cases of run_batch: empty batches, programs without inputs, outputs
// that are leaves, errors at block boundaries, uniform values.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

using testing::built;
using testing::evaluator;
using testing::same_bits;

BatchResult batch(const Evaluator& e, const std::vector<std::vector<double>>& cols, std::size_t count,
                  const Env& fixed = {}) {
  std::vector<std::span<const double>> spans(cols.begin(), cols.end());
  BatchResult out;
  auto s = e.run_batch(spans, count, fixed, out);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return out;
}

TEST(EvalBatch, EmptyBatch) {
  Builder b;
  Value x = b.input("x");
  Evaluator e = evaluator(built(b, x + 1));
  BatchResult r = batch(e, {{}}, 0);
  EXPECT_EQ(r.count, 0u);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].empty());
  EXPECT_TRUE(r.failed.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST(EvalBatch, ProgramWithoutInputsAndLeafOutputs) {
  Builder b;
  Value w = b.parameter("w", 2.5);
  Value c = b.constant(7);
  auto p = b.build({{"w", w}, {"c", c}, {"sum", w + c}, {"again", w}});
  ASSERT_TRUE(p.ok());
  Evaluator e = evaluator(*p);
  Env fixed;
  fixed.params["w"] = -1;
  BatchResult r = batch(e, {}, 300, fixed);
  ASSERT_EQ(r.outputs.size(), 4u);
  for (std::size_t c2 = 0; c2 < 300; ++c2) {
    EXPECT_EQ(r.outputs[0][c2], -1);
    EXPECT_EQ(r.outputs[1][c2], 7);
    EXPECT_EQ(r.outputs[2][c2], 6);
    EXPECT_EQ(r.outputs[3][c2], -1);
  }
}

TEST(EvalBatch, InputOutputIsRoundedUnderFloat32) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x");
  Evaluator e = evaluator(built(b, x));
  BatchResult r = batch(e, {{0.1, 1e300, 3}}, 3);
  EXPECT_TRUE(same_bits(r.outputs[0][0], static_cast<double>(0.1f)));
  EXPECT_EQ(r.failed, (std::vector<std::uint8_t>{0, 1, 0}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].second.message, "input 'x': 1e+300 is outside the float32 range");
  EXPECT_TRUE(std::isnan(r.outputs[0][1]));
  EXPECT_EQ(r.outputs[0][2], 3);
}

TEST(EvalBatch, IntegerInputsMustBeExactInFloat32) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value n = b.input("n", Domain::int32());
  Evaluator e = evaluator(built(b, n + 0));
  BatchResult r = batch(e, {{16777216, 16777217, -3}}, 3);
  EXPECT_EQ(r.failed, (std::vector<std::uint8_t>{0, 1, 0}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].second.message, "input 'n': 16777217 is not exactly representable in float32");
  EXPECT_EQ(r.outputs[0][0], 16777216);
  Env env;
  env.inputs["n"] = 16777217;
  auto single = e.run(env);
  ASSERT_FALSE(single.ok());
  EXPECT_EQ(single.error().message, r.errors[0].second.message);
}

TEST(EvalBatch, ErrorsAtBlockBoundariesAreReportedInCaseOrder) {
  Builder b;
  Value x = b.input("x");
  Evaluator e = evaluator(built(b, 10 / x));
  const std::size_t n = 1500;
  std::vector<double> xs(n, 2);
  const std::vector<std::size_t> zeros = {0, 255, 256, 511, 512, 1023, 1024, 1499};
  for (std::size_t z : zeros) xs[z] = 0;
  BatchResult r = batch(e, {xs}, n);
  ASSERT_EQ(r.errors.size(), zeros.size());
  for (std::size_t k = 0; k < zeros.size(); ++k) {
    EXPECT_EQ(r.errors[k].first, zeros[k]);
    EXPECT_EQ(r.failed[zeros[k]], 1);
  }
  EXPECT_EQ(r.outputs[0][1], 5);
  EXPECT_EQ(r.outputs[0][1498], 5);
}

TEST(EvalBatch, OverflowingFloat32ConstantInAnUnchosenBranchIsHarmless) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x");
  Value huge = b.constant(1e300);  // infinite as binary32: an error where it is used
  Evaluator e = evaluator(built(b, b.select(x > 0, x, huge)));
  BatchResult r = batch(e, {{1, -1, 2}}, 3);
  EXPECT_EQ(r.failed, (std::vector<std::uint8_t>{0, 1, 0}));
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].second.message, "node 1 (constant): result 1e+300 overflows float32");
  EXPECT_EQ(r.outputs[0][0], 1);
  EXPECT_EQ(r.outputs[0][2], 2);
}

TEST(EvalBatch, StateThatIsItsOwnUpdateAndSharedOutputs) {
  Builder b;
  Value x = b.input("x");
  Value s = b.state("s", 4, Domain::float64());
  Value t = b.state("t", 0, Domain::float64());
  b.update(s, s);
  b.update(t, x);
  auto p = b.build({{"a", x * s}, {"b", x * s}});
  ASSERT_TRUE(p.ok());
  Evaluator e = evaluator(*p);
  BatchResult r = batch(e, {{1, 2, 3}}, 3);
  EXPECT_EQ(r.outputs[0], (std::vector<double>{4, 8, 12}));
  EXPECT_EQ(r.outputs[1], (std::vector<double>{4, 8, 12}));
  EXPECT_EQ(r.next_state[0], (std::vector<double>{4, 4, 4}));
  EXPECT_EQ(r.next_state[1], (std::vector<double>{1, 2, 3}));
}

TEST(EvalBatch, ManyCasesWhereMostAreFlaggedButAlive) {
  // `10 // n if n != 0 else 0` over a column that is mostly zero: every zero
  // case is flagged by the fast path and rescued by the lazy re-run.
  Builder b;
  Value n = b.input("n", Domain::int32(-3, 3));
  Value r = b.select(b.op("ne", n, 0), b.op("floordiv", 10, n), 0);
  Evaluator e = evaluator(built(b, r));
  std::vector<double> ns(2000, 0);
  for (std::size_t i = 0; i < ns.size(); i += 7) ns[i] = static_cast<double>(i % 7 == 0 ? -3 : 2);
  BatchResult out = batch(e, {ns}, ns.size());
  EXPECT_TRUE(out.errors.empty());
  for (std::size_t i = 0; i < ns.size(); ++i)
    EXPECT_EQ(out.outputs[0][i], ns[i] == 0 ? 0 : std::floor(10 / ns[i])) << i;
}

TEST(EvalBatch, ManyLiveValuesUseShorterBlocks) {
  // 40,000 values alive until the end (all outputs): the fast path must
  // shrink its blocks rather than allocate 40,000 full columns, and still
  // agree with the scalar path.
  Builder b;
  Value x = b.input("x");
  std::vector<std::pair<std::string, Arg>> outs;
  for (int i = 0; i < 40000; ++i) {
    std::string name = "o";  // (not "o" + ...: GCC 12 warns falsely about that)
    name += std::to_string(i);
    outs.emplace_back(name, x * (i + 1));
  }
  auto p = b.build(outs);
  ASSERT_TRUE(p.ok());
  Evaluator e = evaluator(*p);
  std::vector<double> xs(20);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<double>(i) * 0.5;
  BatchResult r = batch(e, {xs}, xs.size());
  ASSERT_EQ(r.outputs.size(), 40000u);
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(r.outputs[39999][19], 9.5 * 40000);
  EXPECT_EQ(r.outputs[0][3], 1.5);
}

}  // namespace
}  // namespace tc
