// Data-parallel fit through FitReduction, with shards trained on threads
// and a reduction that sums their partial sums in shard order (the MPI layer
// does the same with MPI_Allreduce): one shard is bit for bit the plain
// fit, several agree up to the summation order, and a failing shard stops
// every shard at the same step.
#include <barrier>
#include <cmath>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "grad/fit.h"
#include "ir/builder.h"

namespace tc {
namespace {

/// w * x + b * sigmoid(x) + c / x.
Program model() {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 0.5), bias = b.parameter("b", -0.25), c = b.parameter("c", 0.125);
  auto p = b.build(w * x + bias * b.sigmoid(x) + c / x);
  EXPECT_TRUE(p.ok());
  return *p;
}

std::vector<FitCase> data(std::size_t n) {
  std::vector<FitCase> cases;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = (i % 2 ? -1.0 : 1.0) * (0.5 + 2.5 * static_cast<double>((i * 7919) % 1000) / 1000.0);
    cases.push_back({Env{{{"x", x}}, {}, {}}, {1.7 * x - 0.3 / (1 + std::exp(-x)) + 0.2 / x}});
  }
  return cases;
}

/// Shards meet at a barrier; the last to arrive adds the partial sums in
/// shard order and every shard copies the same result.
class ThreadReduction final : public FitReduction {
 public:
  explicit ThreadReduction(std::size_t shards) : partial_(shards), failed_(shards), barrier_(static_cast<std::ptrdiff_t>(shards)) {}
  void set_shard(std::size_t s) { shard_ = s; }
  Status all_sum(std::span<double> sums, bool failed) override {
    const std::size_t s = shard_;
    partial_[s].assign(sums.begin(), sums.end());
    failed_[s] = failed;
    barrier_.arrive_and_wait();
    bool any = false;
    std::vector<double> total(sums.size(), 0.0);
    for (std::size_t k = 0; k < partial_.size(); ++k) {
      any = any || failed_[k];
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += partial_[k][i];
    }
    barrier_.arrive_and_wait();  // nobody overwrites a partial before all have read
    if (any) return make_error("another shard failed");
    std::copy(total.begin(), total.end(), sums.begin());
    return ok_status();
  }

 private:
  static thread_local std::size_t shard_;
  std::vector<std::vector<double>> partial_;
  std::vector<bool> failed_;
  std::barrier<> barrier_;
};
thread_local std::size_t ThreadReduction::shard_ = 0;

struct ShardResult {
  Result<FitReport> report = make_error("not run");
  std::size_t failed = ~std::size_t{0};
};

std::vector<ShardResult> fit_in_shards(const Program& p, const std::vector<FitCase>& cases, FitOptions o,
                                       std::size_t shards) {
  ThreadReduction reduction(shards);
  o.reduction = &reduction;
  o.total_cases = cases.size();
  std::vector<ShardResult> results(shards);
  std::vector<std::thread> threads;
  for (std::size_t s = 0; s < shards; ++s)
    threads.emplace_back([&, s] {
      reduction.set_shard(s);
      std::vector<FitCase> mine(cases.begin() + static_cast<std::ptrdiff_t>(cases.size() * s / shards),
                                cases.begin() + static_cast<std::ptrdiff_t>(cases.size() * (s + 1) / shards));
      results[s].failed = mine.size();
      results[s].report = fit(p, mine, o, &results[s].failed);
    });
  for (auto& t : threads) t.join();
  return results;
}

FitOptions options(Optimizer opt) {
  FitOptions o;
  o.targets = {"result"};
  o.optimizer = opt;
  o.learning_rate = 0.05;
  o.steps = 30;
  return o;
}

TEST(GradFitReduction, OneShardIsBitIdentical) {
  for (Optimizer opt : {Optimizer::Sgd, Optimizer::Adam}) {
    auto cases = data(300);
    auto plain = fit(model(), cases, options(opt));
    ASSERT_TRUE(plain.ok());
    auto shards = fit_in_shards(model(), cases, options(opt), 1);
    ASSERT_TRUE(shards[0].report.ok()) << shards[0].report.error().message;
    EXPECT_EQ(shards[0].report->parameters, plain->parameters);
    EXPECT_EQ(shards[0].report->initial_loss, plain->initial_loss);
    EXPECT_EQ(shards[0].report->final_loss, plain->final_loss);
  }
}

TEST(GradFitReduction, SeveralShardsAgreeUpToSummationOrder) {
  for (Optimizer opt : {Optimizer::Sgd, Optimizer::Adam}) {
    auto cases = data(301);
    auto plain = fit(model(), cases, options(opt));
    ASSERT_TRUE(plain.ok());
    for (std::size_t n : {2u, 3u, 8u}) {
      auto shards = fit_in_shards(model(), cases, options(opt), n);
      for (const auto& s : shards) {
        ASSERT_TRUE(s.report.ok()) << s.report.error().message;
        // Every shard applied the same updates: identical parameters.
        EXPECT_EQ(s.report->parameters, shards[0].report->parameters);
      }
      for (std::size_t k = 0; k < plain->parameters.size(); ++k) {
        const double a = plain->parameters[k].second, b = shards[0].report->parameters[k].second;
        EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::fabs(a))) << n << " shards, " << plain->parameters[k].first;
      }
      EXPECT_NEAR(plain->final_loss, shards[0].report->final_loss, 1e-9 * std::max(1.0, plain->final_loss));
    }
  }
}

TEST(GradFitReduction, FailingCaseStopsEveryShard) {
  auto cases = data(40);
  cases[31].env.inputs["x"] = 0.0;  // c / x fails, in the last of 3 shards
  auto shards = fit_in_shards(model(), cases, options(Optimizer::Sgd), 3);
  for (std::size_t s = 0; s < 3; ++s) ASSERT_FALSE(shards[s].report.ok()) << "shard " << s;
  EXPECT_NE(shards[2].report.error().message.find("division by zero"), std::string::npos);
  EXPECT_EQ(shards[2].failed, 31u - 26u);  // the case's index within its shard
  EXPECT_EQ(shards[0].report.error().message, "another shard failed");
  EXPECT_EQ(shards[0].failed, 13u);  // untouched: not this shard's case
}

TEST(GradFitReduction, EmptyShardTakesPart) {
  auto cases = data(1);
  auto shards = fit_in_shards(model(), cases, options(Optimizer::Adam), 2);  // shard 0 gets none
  ASSERT_TRUE(shards[0].report.ok()) << shards[0].report.error().message;
  ASSERT_TRUE(shards[1].report.ok());
  EXPECT_EQ(shards[0].report->parameters, shards[1].report->parameters);
  auto plain = fit(model(), cases, options(Optimizer::Adam));
  EXPECT_EQ(shards[1].report->parameters, plain->parameters);  // 0 + x == x
}

}  // namespace
}  // namespace tc
