// The compiled plan (core/eval/compiled_plan.h) against the interpreter,
// every path: run_batch on one thread and on three, run() per case, for the
// corpus (float64 and float32, with state and relaxed programs too), random
// programs with rejected inputs and failing nodes, and stateful programs.
// Values bit for bit (zeros' signs included), the same failing cases, the
// same messages and nodes. Also: the fallback when no compiler can be run,
// the refusal of host calls, and the Auto rule's cache look-up.
// The plan cache: refused when someone else could write it (foreign owner,
// group- or world-writable, someone else's symlink, the /tmp fallback),
// damaged entries rebuilt, nothing left behind by a failing, hanging or
// killed compiler; Auto compiles in the background and never waits.
// Without a working C compiler the comparisons are SKIPPED; without root
// (chown to another user) the foreign-owner cases are.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_util.h"
#include "emit/export_programs.h"
#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using testing::expect_same_batch;
using testing::same_bits;

/// Plans of these tests are cached apart from the user's (reruns hit it).
class CompiledPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path dir = fs::temp_directory_path() / "tc-compiled-plan-test-cache";
    setenv("TC_CACHE_DIR", dir.c_str(), 1);
    unsetenv("TC_CC");
    unsetenv("TC_PLAN_COMPILE_TIMEOUT");
    unsetenv("TC_PLAN_COMPILE_AFTER");
  }
  void TearDown() override {
    unsetenv("TC_CC");
    unsetenv("TC_PLAN_COMPILE_TIMEOUT");
    unsetenv("TC_PLAN_COMPILE_AFTER");
  }
};

Evaluator make(const Program& p, EvalPlan plan, const Bindings* b = nullptr) {
  EvalOptions o;
  o.plan = plan;
  o.bindings = b;
  auto ev = Evaluator::create(p, o);
  EXPECT_TRUE(ev.ok()) << ev.error().message;
  return std::move(ev.value());
}

/// Why the compiled evaluator has no plan, or "" when it has one.
std::string no_plan(const Evaluator& ev) { return ev.plan_status().compiled ? "" : ev.plan_status().reason; }

/// Runs `p` on every path: kNoCompiler when no compiler works (skip), else
/// whether the compiled evaluator really ran its plan.
enum Ran { kNoCompiler, kInterpreted, kCompiled };
Ran compare_paths(const Program& p, const std::vector<std::vector<double>>& columns, std::size_t count,
                   const Env& fixed, const std::string& what, bool expect_compiled, bool some_answered = true) {
  const Evaluator interp = make(p, EvalPlan::Interpreter), compiled = make(p, EvalPlan::Compiled);
  std::vector<std::span<const double>> cols(columns.begin(), columns.end());
  BatchResult want, got;
  EXPECT_TRUE(interp.run_batch(cols, count, fixed, want, 1).ok()) << what;
  EXPECT_TRUE(compiled.run_batch(cols, count, fixed, got, 1).ok()) << what;
  const std::string why = no_plan(compiled);
  if (why.rfind("no C compiler", 0) == 0) return kNoCompiler;
  if (expect_compiled) EXPECT_EQ(why, "") << what;
  expect_same_batch(want, got, what + " (compiled, 1 thread)");
  if (why.empty()) {
    // The fast path must do the work: a kernel that flags every case gives
    // the interpreter's bits too, but hands every case back.
    const std::size_t passed = static_cast<std::size_t>(std::count(want.failed.begin(), want.failed.end(), 0));
    const PlanStatus st = compiled.plan_status();
    EXPECT_EQ(st.compiled_cases, count) << what;
    if (passed > 0 && some_answered) {
      EXPECT_LT(st.handed_back, count) << what << ": every case was handed back to the interpreter";
    }
  }
  EXPECT_TRUE(compiled.run_batch(cols, count, fixed, got, 3).ok());
  expect_same_batch(want, got, what + " (compiled, 3 threads)");
  EXPECT_TRUE(interp.run_batch(cols, count, fixed, got, 3).ok());
  expect_same_batch(want, got, what + " (interpreter, 3 threads)");
  // run(), one case at a time, on a sample of the cases.
  const auto& ids = p.nodes_of(Op::Input);
  for (std::size_t c = 0; c < count; c += 3) {
    Env env = fixed;
    for (std::size_t k = 0; k < ids.size(); ++k) env.inputs[p.nodes[static_cast<std::size_t>(ids[k])].name] = columns[k][c];
    auto a = interp.run(env), b = compiled.run(env);
    EXPECT_EQ(a.ok(), b.ok()) << what << ", run() case " << c;
    if (!a.ok() || !b.ok()) {
      if (!a.ok() && !b.ok()) {
        EXPECT_EQ(a.error().message, b.error().message) << what << ", run() case " << c;
        EXPECT_EQ(a.error().node, b.error().node) << what << ", run() case " << c;
      }
      continue;
    }
    for (std::size_t o = 0; o < a->outputs.size(); ++o)
      EXPECT_TRUE(same_bits(a->outputs[o], b->outputs[o])) << what << ", run() case " << c << ", output " << o;
    for (std::size_t u = 0; u < a->next_state.size(); ++u)
      EXPECT_TRUE(same_bits(a->next_state[u], b->next_state[u])) << what << ", run() case " << c << ", update " << u;
  }
  return why.empty() ? kCompiled : kInterpreted;
}

// 300 cases: several whole blocks (64 float64 or 128 float32 cases) and a
// tail that the scalar compiled function runs.
constexpr std::size_t kCases = 300;

TEST_F(CompiledPlanTest, CorpusAgreesWithTheInterpreterOnEveryPath) {
  std::size_t programs = 0, compiled = 0;
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    std::uint64_t seed = 7;
    for (auto& e : testgen::load_corpus(std::string(TC_TEST_DATA) + "/corpus", dtype)) {
      if (!e.error.empty() || e.program.has_calls()) continue;
      const auto cols = testgen::random_cases(e.program, kCases, ++seed, /*out_of_domain=*/true);
      const std::string what = e.file + (dtype == Dtype::Float32 ? " (float32)" : " (float64)");
      const Ran ran = compare_paths(e.program, cols, kCases, Env{}, what, false);
      if (ran == kNoCompiler) GTEST_SKIP() << "no C compiler works here";
      ++programs;
      compiled += ran == kCompiled;
    }
  }
  EXPECT_GE(programs, 100u);
  EXPECT_GE(compiled, 60u);  // most of the corpus is exact: they really ran compiled
}

TEST_F(CompiledPlanTest, RandomProgramsAgreeWithTheInterpreterOnEveryPath) {
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    const int n = dtype == Dtype::Float64 ? 90 : 30;
    for (int k = 0; k < n; ++k) {
      testgen::GenOptions o;
      o.seed = 31000 + static_cast<std::uint64_t>(k);
      o.int_inputs = k % 3 == 1;
      o.sigmoid_outputs = k % 3 == 2;
      o.nodes = 30 + (k % 4) * 10;
      Program p = testgen::random_program(o);
      p.dtype = dtype;
      const auto cols = testgen::random_cases(p, kCases, o.seed * 7 + 1, /*out_of_domain=*/true);
      // Not every random program gets cases answered by the compiled code:
      // seed 31040 has a check that fails on every case in a node the
      // interpreter never reaches (the kernel computes every needed node), so
      // all 300 are handed back; the corpus, state, thread and clean-case
      // tests hold the count down.
      if (compare_paths(p, cols, kCases, Env{}, "random seed " + std::to_string(o.seed), true, false) == kNoCompiler)
        GTEST_SKIP() << "no C compiler works here";
    }
  }
}

/// A stateful program: state is a kernel parameter, updates extra outputs;
/// an overflowing and a dividing node fail on some cases.
TEST_F(CompiledPlanTest, StateAndParametersAgreeWithTheInterpreter) {
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, dtype);
    Value x = b.input("x", Domain::float64(-1e3, 1e3));
    Value s = b.state("s", 2.0, Domain::float64(-1e300, 1e300));
    Value w = b.parameter("w", 1.5);
    Value y = b.select(x > 0.0, s * x * w, s / x);
    Value big = y * 1e306 * x;  // overflows where |x| is large
    b.update(s, s + y);
    auto p = b.build({{"y", y}, {"big", big}});
    ASSERT_TRUE(p.ok()) << p.error().message;
    std::vector<std::vector<double>> cols(1);
    for (std::size_t c = 0; c < kCases; ++c) cols[0].push_back(c % 17 == 0 ? 0.0 : static_cast<double>(c) - 150.5);
    Env fixed;
    fixed.state["s"] = 3.25;
    fixed.params["w"] = -0.75;
    if (compare_paths(*p, cols, kCases, fixed, "state program", true) == kNoCompiler) GTEST_SKIP() << "no C compiler works here";
  }
}

TEST_F(CompiledPlanTest, WithoutACompilerTheInterpreterRunsAndSaysWhy) {
  const fs::path dir = fs::temp_directory_path() / ("tc-compiled-plan-nocc-" + std::to_string(::getpid()));
  setenv("TC_CACHE_DIR", dir.c_str(), 1);  // empty: nothing cached to fall back on
  setenv("TC_CC", "/nonexistent/tc-no-such-cc", 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x / (x - 1.0));
  ASSERT_TRUE(p.ok());
  const Evaluator compiled = make(*p, EvalPlan::Compiled), interp = make(*p, EvalPlan::Interpreter);
  std::vector<double> xs{0.5, 1.0, 2.0, 11.0};
  std::vector<std::span<const double>> cols{xs};
  BatchResult want, got;
  ASSERT_TRUE(interp.run_batch(cols, xs.size(), Env{}, want).ok());
  ASSERT_TRUE(compiled.run_batch(cols, xs.size(), Env{}, got).ok());
  const PlanStatus st = compiled.plan_status();
  EXPECT_FALSE(st.compiled);
  EXPECT_NE(st.reason.find("no C compiler: '/nonexistent/tc-no-such-cc'"), std::string::npos) << st.reason;
  expect_same_batch(want, got, "fallback");
  EXPECT_EQ(got.errors.size(), 2u);  // x = 1 divides by zero, 11 is outside the domain
  EXPECT_NE(interp.plan_status().reason.find("interpreter was chosen"), std::string::npos);
  unsetenv("TC_CC");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

/// The files of a cache folder, by name.
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// A compiler that answers --version and fails on the plan: its message
/// (stderr) reaches the reason, and the cache keeps no file of the attempt.
TEST_F(CompiledPlanTest, AFailingCompilerIsQuotedAndLeavesNothingInTheCache) {
  const fs::path dir = fs::temp_directory_path() / ("tc-compiled-plan-badcc-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const fs::path cc = dir / "fake-cc.sh";
  {
    std::ofstream out(cc);
    out << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake-cc 1.0; exit 0; fi\n"
           "echo 'fake-cc: refusing this plan' >&2\nexit 3\n";
  }
  fs::permissions(cc, fs::perms::owner_all);
  const fs::path cache = dir / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  setenv("TC_CC", cc.c_str(), 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x * x + 1.0);
  ASSERT_TRUE(p.ok());
  const Evaluator ev = make(*p, EvalPlan::Compiled);
  auto r = ev.run(testing::inputs({{"x", 3.0}}));
  unsetenv("TC_CC");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0], 10.0);
  EXPECT_FALSE(ev.plan_status().compiled);
  EXPECT_NE(ev.plan_status().reason.find("failed on the compiled plan (exit 3): fake-cc: refusing this plan"),
            std::string::npos)
      << ev.plan_status().reason;
  EXPECT_TRUE(files_in(cache).empty()) << files_in(cache).front();
  fs::remove_all(dir, ec);
}

/// A fresh cache holds the plan's source and library and nothing else
/// (no version or log files left by the compiler's runs).
TEST_F(CompiledPlanTest, TheCacheHoldsOnlyWholePlans) {
  const fs::path cache = fs::temp_directory_path() / ("tc-compiled-plan-fresh-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(cache, ec);
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x * 0.25 - 7.0);
  ASSERT_TRUE(p.ok());
  const Evaluator ev = make(*p, EvalPlan::Compiled);
  ASSERT_TRUE(ev.run(testing::inputs({{"x", 2.0}})).ok());
  if (no_plan(ev).rfind("no C compiler", 0) == 0) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(ev.plan_status().compiled) << ev.plan_status().reason;
  const auto names = files_in(cache);
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0].substr(0, 5), "plan-");
  EXPECT_EQ(names[0].substr(names[0].size() - 2), ".c");
  EXPECT_EQ(names[1].substr(names[1].size() - 3), ".so");
  EXPECT_EQ(names[2].substr(names[2].size() - 4), ".sum");
  // Created for this user alone.
  EXPECT_EQ(fs::status(cache).permissions() & fs::perms::all, fs::perms::owner_all);
  fs::remove_all(cache, ec);
}

TEST_F(CompiledPlanTest, HostCallsStayWithTheInterpreter) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(b.call("twice", {x}) + 1.0);
  ASSERT_TRUE(p.ok());
  Bindings bind;
  bind["twice"].forward = [](std::span<const double> a) { return 2 * a[0]; };
  const Evaluator ev = make(*p, EvalPlan::Compiled, &bind);
  auto r = ev.run(testing::inputs({{"x", 2.0}}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0], 5.0);
  EXPECT_FALSE(ev.plan_status().compiled);
  EXPECT_NE(ev.plan_status().reason.find("host calls"), std::string::npos) << ev.plan_status().reason;
}

/// Auto: a small batch is interpreted; once the work seen pays for looking
/// in the cache, a plan compiled before is found there and used.
TEST_F(CompiledPlanTest, AutoFindsACachedPlanOnceTheWorkPaysForTheLookUp) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  Value y = x;
  for (int i = 0; i < 10; ++i) y = y * 0.5 + x;
  auto p = b.build(y);
  ASSERT_TRUE(p.ok());
  const Evaluator warm = make(*p, EvalPlan::Compiled);  // puts the plan in the cache
  (void)warm.run(testing::inputs({{"x", 1.0}}));
  if (no_plan(warm).rfind("no C compiler", 0) == 0) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(warm.plan_status().compiled) << warm.plan_status().reason;

  const Evaluator ev = make(*p, EvalPlan::Auto);
  std::vector<double> xs(100, 0.25);
  std::vector<std::span<const double>> cols{xs};
  BatchResult out;
  ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out).ok());
  EXPECT_FALSE(ev.plan_status().compiled);  // 100 cases: not worth a look-up
  std::vector<double> many(1000000, 0.25);
  std::vector<std::span<const double>> big{many};
  ASSERT_TRUE(ev.run_batch(big, many.size(), Env{}, out).ok());
  EXPECT_TRUE(ev.plan_status().compiled) << ev.plan_status().reason;
  EXPECT_TRUE(ev.plan_status().cache_hit);
}


// ---- more than one chunk, and nothing handed back without a reason ---------

/// 3 threads over 4 * 1024 + 77 cases: several chunks of whole blocks and a
/// tail, so the parallel path (and its join of errors in chunk order) runs.
TEST_F(CompiledPlanTest, ThreadsShareSeveralChunks) {
  constexpr std::size_t kMany = 4 * 1024 + 77;
  for (int k = 0; k < 6; ++k) {
    testgen::GenOptions o;
    o.seed = 47000 + static_cast<std::uint64_t>(k);
    o.nodes = 40;
    Program p = testgen::random_program(o);
    const auto cols = testgen::random_cases(p, kMany, o.seed * 3 + 1, /*out_of_domain=*/true);
    if (compare_paths(p, cols, kMany, Env{}, "threads, seed " + std::to_string(o.seed), true) == kNoCompiler)
      GTEST_SKIP() << "no C compiler works here";
  }
}

/// A program no case of which fails: the compiled code answers every case.
TEST_F(CompiledPlanTest, CasesWithoutProblemsAreNotHandedBack) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x * 0.5 + 3.0);
  ASSERT_TRUE(p.ok());
  const Evaluator ev = make(*p, EvalPlan::Compiled);
  std::vector<double> xs(3000);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = -9.0 + 0.005 * static_cast<double>(i);
  std::vector<std::span<const double>> cols{xs};
  BatchResult out;
  ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out, 3).ok());
  if (no_plan(ev).rfind("no C compiler", 0) == 0) GTEST_SKIP() << "no C compiler works here";
  const PlanStatus st = ev.plan_status();
  ASSERT_TRUE(st.compiled) << st.reason;
  EXPECT_EQ(st.compiled_cases, xs.size());
  EXPECT_EQ(st.handed_back, 0u);
  EXPECT_EQ(st.summary.rfind("compiled (", 0), 0u) << st.summary;
  EXPECT_FALSE(st.isa.empty());
  xs[5] = 20.0;  // outside the domain: flagged, and the interpreter words it
  ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out, 1).ok());
  EXPECT_EQ(ev.plan_status().handed_back, 1u);
  ASSERT_EQ(out.errors.size(), 1u);
}

// ---- the cache's trust checks ------------------------------------------------

/// A program whose plan the trust tests compile (small: quick to build).
Program small_program(double k = 3.0) {
  Builder b;
  Value x = b.input("x", Domain::float64(-100, 100));
  auto p = b.build(x * k - 1.0);
  EXPECT_TRUE(p.ok());
  return std::move(p.value());
}

/// Runs a Compiled evaluator of `p` once; its status.
PlanStatus compile_once(const Program& p) {
  const Evaluator ev = make(p, EvalPlan::Compiled);
  auto r = ev.run(testing::inputs({{"x", 2.0}}));
  EXPECT_TRUE(r.ok());
  return ev.plan_status();
}

bool no_compiler(const PlanStatus& st) { return st.reason.rfind("no C compiler", 0) == 0; }

/// The entry files of a compiled plan, from its .so path.
struct EntryFiles {
  fs::path so, sum, c;
  explicit EntryFiles(const std::string& so_path) : so(so_path) {
    std::string stem = so_path.substr(0, so_path.size() - 3);
    sum = stem + ".sum";
    c = stem + ".c";
  }
};

bool root() { return ::geteuid() == 0; }
constexpr uid_t kOtherUser = 65534;  // nobody

TEST_F(CompiledPlanTest, ACacheFolderOfAnotherUserIsRefused) {
  if (!root()) GTEST_SKIP() << "needs root to give a folder to another user";
  const fs::path cache = fs::path(testing::temp_dir()) / "cache";
  fs::create_directories(cache);
  ASSERT_EQ(::chown(cache.c_str(), kOtherUser, kOtherUser), 0);
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  const PlanStatus st = compile_once(small_program());
  if (no_compiler(st)) GTEST_SKIP() << "no C compiler works here";
  EXPECT_FALSE(st.compiled);
  EXPECT_EQ(st.reason, "cache refused: '" + cache.string() + "' is owned by uid 65534, not by this user (uid 0)");
  EXPECT_EQ(st.summary, "interpreting: " + st.reason);
  EXPECT_TRUE(files_in(cache).empty());
}

TEST_F(CompiledPlanTest, AGroupOrWorldWritableCacheFolderIsRefused) {
  for (auto mode : {fs::perms::owner_all | fs::perms::group_all, fs::perms::owner_all | fs::perms::others_write}) {
    const fs::path cache = fs::path(testing::temp_dir()) / "cache";
    fs::create_directories(cache);
    fs::permissions(cache, mode);
    setenv("TC_CACHE_DIR", cache.c_str(), 1);
    const PlanStatus st = compile_once(small_program());
    if (no_compiler(st)) GTEST_SKIP() << "no C compiler works here";
    EXPECT_FALSE(st.compiled);
    EXPECT_EQ(st.reason.rfind("cache refused: '" + cache.string() + "' is writable by", 0), 0u) << st.reason;
    EXPECT_TRUE(files_in(cache).empty());
  }
}

TEST_F(CompiledPlanTest, ACacheReachedThroughAnotherUsersSymlinkIsRefused) {
  const fs::path dir = testing::temp_dir(), real = dir / "real", link = dir / "link";
  fs::create_directories(real);
  fs::create_directory_symlink(real, link);
  setenv("TC_CACHE_DIR", (link / "sub").c_str(), 1);
  // This user's own link is followed (a cache moved to another disk).
  const PlanStatus mine = compile_once(small_program());
  if (no_compiler(mine)) GTEST_SKIP() << "no C compiler works here";
  EXPECT_TRUE(mine.compiled) << mine.reason;
  EXPECT_EQ(mine.path.rfind((real / "sub").string(), 0), 0u) << mine.path;
  if (!root()) GTEST_SKIP() << "needs root to give a symlink to another user";
  ASSERT_EQ(::lchown(link.c_str(), kOtherUser, kOtherUser), 0);
  const PlanStatus st = compile_once(small_program());
  EXPECT_FALSE(st.compiled);
  EXPECT_EQ(st.reason.rfind("cache refused: '" + link.string() + "' is a symbolic link owned by uid 65534", 0), 0u)
      << st.reason;
}

TEST_F(CompiledPlanTest, APlantedEntryOfAnotherUserIsNeverLoaded) {
  const fs::path cache = fs::path(testing::temp_dir()) / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  const Program p = small_program(5.0);
  const PlanStatus first = compile_once(p);
  if (no_compiler(first)) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(first.compiled) << first.reason;
  const EntryFiles files(first.path);
  // Group-writable: anyone in the group could have replaced it.
  fs::permissions(files.so, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_write);
  PlanStatus st = compile_once(p);
  EXPECT_FALSE(st.compiled);
  EXPECT_EQ(st.reason, "cache refused: '" + files.so.string() + "' is writable by its group (mode 0620)");
  fs::permissions(files.so, fs::perms::owner_read | fs::perms::owner_write);
  if (!root()) GTEST_SKIP() << "needs root to give a file to another user";
  for (const fs::path& f : {files.so, files.sum, files.c}) {
    ASSERT_EQ(::chown(f.c_str(), kOtherUser, kOtherUser), 0);
    st = compile_once(p);
    EXPECT_FALSE(st.compiled) << f;
    EXPECT_EQ(st.reason, "cache refused: '" + f.string() + "' is owned by uid 65534, not by this user (uid 0)");
    ASSERT_EQ(::chown(f.c_str(), 0, 0), 0);
  }
  EXPECT_TRUE(compile_once(p).cache_hit);  // whole and ours again
}

/// Cuts the file to its first `bytes`.
void truncate_to(const fs::path& f, std::uintmax_t bytes) { fs::resize_file(f, bytes); }

TEST_F(CompiledPlanTest, ADamagedObjectIsRebuilt) {
  const fs::path cache = fs::path(testing::temp_dir()) / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  const Program p = small_program(7.0);
  const PlanStatus first = compile_once(p);
  if (no_compiler(first)) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(first.compiled) << first.reason;
  const EntryFiles files(first.path);
  const auto size = fs::file_size(files.so);
  truncate_to(files.so, 100);  // "file too short" for dlopen
  // A look-up (Auto's probe) finds no whole entry...
  setenv("TC_PLAN_COMPILE_AFTER", "1e9", 1);
  {
    const Evaluator ev = make(p, EvalPlan::Auto);
    std::vector<double> xs(2000000, 1.0);
    std::vector<std::span<const double>> cols{xs};
    BatchResult out;
    ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out).ok());
    EXPECT_FALSE(ev.plan_status().compiled);
    EXPECT_EQ(ev.plan_status().reason.rfind("damaged in the plan cache: '" + files.so.string() +
                                                "' does not match its checksum", 0), 0u)
        << ev.plan_status().reason;
  }
  unsetenv("TC_PLAN_COMPILE_AFTER");
  // ...and a compile replaces it.
  const PlanStatus again = compile_once(p);
  EXPECT_TRUE(again.compiled) << again.reason;
  EXPECT_FALSE(again.cache_hit);
  EXPECT_EQ(fs::file_size(files.so), size);
  EXPECT_TRUE(compile_once(p).cache_hit);
}

TEST_F(CompiledPlanTest, AnObjectThatDoesNotMatchItsChecksumIsRebuilt) {
  const fs::path cache = fs::path(testing::temp_dir()) / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  const Program p = small_program(9.0);
  const PlanStatus first = compile_once(p);
  if (no_compiler(first)) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(first.compiled) << first.reason;
  const EntryFiles files(first.path);
  // Same size, one byte changed near the end (string tables: it would load).
  {
    std::fstream f(files.so, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-8, std::ios::end);
    char ch = 0;
    f.get(ch);
    f.seekp(-8, std::ios::end);
    f.put(static_cast<char>(ch ^ 0x20));
  }
  PlanStatus st = compile_once(p);
  EXPECT_TRUE(st.compiled) << st.reason;
  EXPECT_FALSE(st.cache_hit);
  EXPECT_TRUE(compile_once(p).cache_hit);
  // A missing checksum is a damaged entry too.
  fs::remove(files.sum);
  st = compile_once(p);
  EXPECT_TRUE(st.compiled) << st.reason;
  EXPECT_FALSE(st.cache_hit);
  EXPECT_TRUE(fs::exists(files.sum));
}

/// A shell script standing in for the compiler: answers --version, and runs
/// `body` on a compile ($OUT is the -o argument).
std::string fake_compiler(const fs::path& dir, const std::string& body) {
  const fs::path cc = dir / "fake-cc.sh";
  {
    std::ofstream out(cc);
    out << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake-cc 2.0; exit 0; fi\n"
           "OUT=\n"
           "prev=\n"
           "for a in \"$@\"; do if [ \"$prev\" = -o ]; then OUT=$a; fi; prev=$a; done\n"
        << body << "\n";
  }
  fs::permissions(cc, fs::perms::owner_all);
  return cc.string();
}

TEST_F(CompiledPlanTest, ACompilerThatWritesHalfAnObjectAndFailsLeavesNothing) {
  const fs::path dir = testing::temp_dir(), cache = dir / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  setenv("TC_CC", fake_compiler(dir, "printf 'ELF-half' > \"$OUT\"\necho 'fake-cc: out of space' >&2\nexit 1").c_str(), 1);
  const PlanStatus st = compile_once(small_program(11.0));
  EXPECT_FALSE(st.compiled);
  EXPECT_NE(st.reason.find("failed on the compiled plan (exit 1): fake-cc: out of space"), std::string::npos)
      << st.reason;
  EXPECT_TRUE(files_in(cache).empty()) << files_in(cache).front();
}

TEST_F(CompiledPlanTest, ACompilerThatHangsIsKilledAtTheTimeout) {
  const fs::path dir = testing::temp_dir(), cache = dir / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  setenv("TC_PLAN_COMPILE_TIMEOUT", "0.5", 1);
  // The script's child holds the output pipe: the whole group must go.
  setenv("TC_CC", fake_compiler(dir, "printf 'partial' > \"$OUT\"\nsleep 60\nexit 0").c_str(), 1);
  const auto t0 = std::chrono::steady_clock::now();
  const PlanStatus st = compile_once(small_program(13.0));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(took, 10.0);
  EXPECT_FALSE(st.compiled);
  EXPECT_NE(st.reason.find("timed out after 0.5 s"), std::string::npos) << st.reason;
  EXPECT_TRUE(files_in(cache).empty()) << files_in(cache).front();
}

/// The cache's files that are not whole entries (temporaries).
std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> t;
  for (const auto& n : files_in(dir))
    if (n.find(".tmp.") != std::string::npos) t.push_back(n);
  return t;
}

TEST_F(CompiledPlanTest, AKilledCompileLeavesNothingUsableAndNothingThatGrows) {
  const fs::path dir = testing::temp_dir(), cache = dir / "cache", pid_file = dir / "cc.pid";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  const Program p = small_program(15.0);
  const std::string cc = fake_compiler(dir, "echo $$ > " + pid_file.string() +
                                                "\nprintf 'half an object' > \"$OUT\"\nexec sleep 60");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("TC_CC", cc.c_str(), 1);
    const Evaluator ev = make(p, EvalPlan::Compiled);
    (void)ev.run(testing::inputs({{"x", 1.0}}));
    ::_exit(0);  // not reached before the kill
  }
  // Killed while the compiler has written part of its object.
  for (int i = 0; i < 500 && !(fs::exists(pid_file) && temporaries_in(cache).size() >= 2); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(temporaries_in(cache).size(), 2u) << "the compile never started";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  // Nothing usable: no entry.
  for (const auto& n : files_in(cache)) EXPECT_EQ(n.rfind("plan-", 0), std::string::npos) << n;
  // The compiler died with the process that started it.
  pid_t cc_pid = 0;
  std::ifstream(pid_file) >> cc_pid;
  ASSERT_GT(cc_pid, 0);
  bool gone = false;
  for (int i = 0; i < 250 && !gone; ++i) {
    gone = ::kill(cc_pid, 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "the compiler outlived its caller";
  // Nothing that grows: the next compile removes the dead process's files.
  const PlanStatus st = compile_once(p);
  if (no_compiler(st)) GTEST_SKIP() << "no C compiler works here";
  EXPECT_TRUE(st.compiled) << st.reason;
  EXPECT_TRUE(temporaries_in(cache).empty()) << temporaries_in(cache).front();
  EXPECT_EQ(files_in(cache).size(), 3u);
}

TEST_F(CompiledPlanTest, TheTemporaryFolderFallbackMustBeThisUsers) {
  const std::string saved_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  const std::string saved_tmp = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "";
  const fs::path tmp = testing::temp_dir();
  unsetenv("TC_CACHE_DIR");
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  setenv("TMPDIR", tmp.c_str(), 1);
  const fs::path fallback = tmp / ("tensorcode-" + std::to_string(::geteuid()));
  struct Restore {
    std::string home, tmpdir;
    ~Restore() {
      if (!home.empty()) setenv("HOME", home.c_str(), 1);
      if (tmpdir.empty())
        unsetenv("TMPDIR");
      else
        setenv("TMPDIR", tmpdir.c_str(), 1);
    }
  } restore{saved_home, saved_tmp};
  // Made first by someone else (who could then plant plans in it): refused.
  fs::create_directories(fallback);
  fs::permissions(fallback, fs::perms::all);  // 0777, as another user's folder in /tmp might be
  PlanStatus st = compile_once(small_program(17.0));
  if (no_compiler(st)) GTEST_SKIP() << "no C compiler works here";
  EXPECT_FALSE(st.compiled);
  EXPECT_EQ(st.reason, "cache refused: '" + fallback.string() + "' is writable by others (mode 0777)");
  if (root()) {
    fs::permissions(fallback, fs::perms::owner_all);
    ASSERT_EQ(::chown(fallback.c_str(), kOtherUser, kOtherUser), 0);
    st = compile_once(small_program(17.0));
    EXPECT_FALSE(st.compiled);
    EXPECT_EQ(st.reason.rfind("cache refused: '" + fallback.string() + "' is owned by uid 65534", 0), 0u)
        << st.reason;
  }
  // Not there: made 0700 and used.
  fs::remove_all(fallback);
  st = compile_once(small_program(17.0));
  EXPECT_TRUE(st.compiled) << st.reason;
  EXPECT_EQ(fs::status(fallback).permissions() & fs::perms::all, fs::perms::owner_all);
}

// ---- Auto compiles in the background -------------------------------------------

/// Calls plan_status() until the background compile is over (or `seconds`).
PlanStatus wait_for_compile(const Evaluator& ev, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  PlanStatus st = ev.plan_status();
  while (st.compiling && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    st = ev.plan_status();
  }
  return st;
}

TEST_F(CompiledPlanTest, AutoNeverWaitsForTheCompile) {
  const fs::path dir = testing::temp_dir(), cache = dir / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  setenv("TC_PLAN_COMPILE_AFTER", "0", 1);  // compile at the first call
  // The real compiler, three seconds late.
  setenv("TC_CC", fake_compiler(dir, "sleep 3\nexec cc \"$@\"").c_str(), 1);
  const Program p = small_program(19.0);
  const Evaluator ev = make(p, EvalPlan::Auto);
  std::vector<double> xs(5000, 2.0);
  std::vector<std::span<const double>> cols{xs};
  BatchResult out;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out).ok());
  auto r = ev.run(testing::inputs({{"x", 2.0}}));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0], 37.0);
  EXPECT_EQ(out.outputs[0][4999], 37.0);
  EXPECT_LT(took, 2.0) << "a call waited for the compile";
  PlanStatus st = ev.plan_status();
  EXPECT_FALSE(st.compiled);
  EXPECT_TRUE(st.compiling);
  EXPECT_EQ(st.summary, "interpreting: compiling in background");
  st = wait_for_compile(ev, 120);
  if (no_compiler(st) || st.reason.find("failed on the compiled plan") != std::string::npos)
    GTEST_SKIP() << "no C compiler works here: " << st.reason;
  ASSERT_TRUE(st.compiled) << st.reason;
  ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out).ok());
  EXPECT_EQ(ev.plan_status().compiled_cases, xs.size());  // the call after the load ran compiled
  EXPECT_EQ(out.outputs[0][4999], 37.0);
}

/// A process that exits while its background compile runs: exit does not
/// wait for the compiler, kills it, and leaves no file behind.
TEST_F(CompiledPlanTest, ExitingDuringABackgroundCompileIsClean) {
  const fs::path dir = testing::temp_dir(), cache = dir / "cache", pid_file = dir / "cc.pid";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  const std::string cc = fake_compiler(dir, "echo $$ > " + pid_file.string() + "\nexec sleep 60");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setenv("TC_CC", cc.c_str(), 1);
    setenv("TC_PLAN_COMPILE_AFTER", "0", 1);
    const Program p = small_program(21.0);
    static const Evaluator* ev = new Evaluator(make(p, EvalPlan::Auto));  // alive at exit
    (void)ev->run(testing::inputs({{"x", 1.0}}));
    for (int i = 0; i < 500 && !fs::exists(pid_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::exit(fs::exists(pid_file) && ev->plan_status().compiling ? 0 : 2);
  }
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_LT(took, 20.0);
  pid_t cc_pid = 0;
  std::ifstream(pid_file) >> cc_pid;
  ASSERT_GT(cc_pid, 0);
  EXPECT_NE(::kill(cc_pid, 0), 0) << "the compiler outlived the process";
  EXPECT_TRUE(files_in(cache).empty()) << files_in(cache).front();
}

}  // namespace
}  // namespace tc
