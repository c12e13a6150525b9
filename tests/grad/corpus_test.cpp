// Finite-difference checks over the shared corpus (tests/data/corpus/*.py):
// every function is compiled, then differentiated in exact and relaxed
// semantics at random points away from decision boundaries, and reverse-mode
// gradients must match central differences.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "frontend/compile.h"
#include "grad/batch_gradients.h"
#include "grad/gradients.h"
#include "grad_test_util.h"

namespace tc {
namespace {

/// Reads the corpus header (README.md there): inputs, function, dtype.
bool parse_header(const std::string& text, CompileOptions& o, std::string& why) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && !line.empty() && line[0] == '#') {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(1, colon - 1), value = line.substr(colon + 1);
    key.erase(0, key.find_first_not_of(' '));
    std::istringstream items(value);
    if (key == "inputs") {
      std::string item;
      while (items >> item) {
        auto eq = item.find('=');
        auto d = parse_domain(item.substr(eq + 1));
        if (eq == std::string::npos || !d) {
          why = "bad input '" + item + "'";
          return false;
        }
        o.inputs.emplace_back(item.substr(0, eq), *d);
      }
    } else if (key == "function") {
      items >> o.function;
    } else if (key == "dtype") {
      std::string d;
      items >> d;
      o.dtype = *dtype_from(d);
    }
  }
  return true;
}

Env random_point(std::mt19937_64& rng, const Program& p) {
  Env env;
  for (const Node& n : p.nodes) {
    if (n.op != Op::Input) continue;
    const double lo = std::max(n.domain->lo(), -100.0), hi = std::min(n.domain->hi(), 100.0);
    if (n.domain->is_integral()) {
      env.inputs[n.name] = lo + static_cast<double>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
    } else {
      env.inputs[n.name] = std::uniform_real_distribution<double>(lo, hi)(rng);
    }
  }
  return env;
}

TEST(GradCorpus, GradientsMatchFiniteDifferences) {
  const std::filesystem::path dir = std::filesystem::path(TC_TEST_DATA) / "corpus";
  ASSERT_TRUE(std::filesystem::exists(dir));
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 20u);

  std::mt19937_64 rng(2024);
  int compiled = 0, checked = 0, with_gradients = 0;
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    auto text = read_file(path.string());
    ASSERT_TRUE(text.ok());
    CompileOptions o;
    o.filename = path.string();
    std::string why;
    ASSERT_TRUE(parse_header(*text, o, why)) << why;
    // float32 rounding makes finite differences at small steps meaningless.
    if (o.dtype == Dtype::Float32) continue;
    auto out = compile_python(*text, o);
    // Every corpus file must compile: the frontend's tests insist on it, and a
    // file that stops compiling must not silently drop out of this check.
    ASSERT_TRUE(out.ok()) << out.error().format();
    ++compiled;
    {  // Hybrid: the forward is the exact one; a gradient either succeeds with
       // finite values or names the unchosen value it needed.
      Program h = out->program, e = out->program;
      h.semantics = Semantics::Hybrid;
      e.semantics = Semantics::Exact;
      for (int point = 0; point < 4; ++point) {
        Env env = random_point(rng, h);
        auto hg = gradients(h, env);
        auto eg = gradients(e, env);
        if (!eg.ok()) continue;
        if (hg.ok()) {
          EXPECT_EQ(hg->result, eg->result);
          for (const auto& [name, d] : hg->gradients) EXPECT_TRUE(std::isfinite(d)) << name;
        } else {
          EXPECT_NE(hg.error().message.find("needs the value it did not choose"), std::string::npos)
              << hg.error().message;
        }
      }
    }
    for (Semantics sem : {Semantics::Exact, Semantics::Relaxed}) {
      Program p = out->program;
      p.semantics = sem;
      for (int point = 0; point < 6; ++point) {
        Env env = random_point(rng, p);
        if (!test::away_from_boundaries(p, env, 1e-3)) continue;
        auto rep = gradient_check(p, env);
        if (!rep.ok()) continue;  // the program raises here (both semantics check that elsewhere)
        if (std::fabs(rep->result) > 1e6) continue;
        GradCheckOptions finer;
        finer.eps = 1e-7;
        auto rep2 = gradient_check(p, env, finer);
        ASSERT_TRUE(rep2.ok());
        bool reliable = true;
        for (std::size_t k = 0; k < rep->finite_differences.size(); ++k) {
          const double a = rep->finite_differences[k].second, b = rep2->finite_differences[k].second;
          reliable = reliable && std::fabs(a - b) <= 1e-5 * std::max({1.0, std::fabs(a), std::fabs(b)});
        }
        if (!reliable) continue;
        ++checked;
        if (!rep->gradients.empty()) ++with_gradients;
        EXPECT_LT(rep->max_rel_diff, 1e-5) << to_string(sem) << " at point " << point;
      }
    }
  }
  std::printf("corpus: %d compiled, %d points checked, %d with gradients\n", compiled, checked, with_gradients);
  EXPECT_GT(compiled, 20);
  EXPECT_GT(checked, 100);
  EXPECT_GT(with_gradients, 20);
}

// The batched tape's compiled plan (GradOptions::plan = Compiled) over the
// whole corpus, float32 files included, each file in one of the three
// semantics in turn: every case's value, error message and input gradients
// and the parameter sums are the per-case tape's bits. Files the plan
// refuses (gathers, calls, raise) run the block kernels and are compared
// all the same; most are compiled.
TEST(GradCorpus, TheBatchedTapesCompiledPlanMatchesThePerCaseTape) {
  setenv("TC_CACHE_DIR", (std::filesystem::temp_directory_path() / "tc-batch-grad-plan-test-cache").c_str(), 1);
  const std::filesystem::path dir = std::filesystem::path(TC_TEST_DATA) / "corpus";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::mt19937_64 rng(77);
  int programs = 0, compiled = 0, failing = 0;
  std::uint64_t lanes = 0, handed_back = 0;
  auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  for (std::size_t f = 0; f < files.size(); ++f) {
    SCOPED_TRACE(files[f].filename().string());
    auto text = read_file(files[f].string());
    ASSERT_TRUE(text.ok());
    CompileOptions o;
    o.filename = files[f].string();
    std::string why;
    ASSERT_TRUE(parse_header(*text, o, why)) << why;
    auto out = compile_python(*text, o);
    ASSERT_TRUE(out.ok()) << out.error().format();
    Program p = out->program;
    p.semantics = static_cast<Semantics>(f % 3);
    GradOptions go;
    go.plan = EvalPlan::Compiled;
    auto tape = GradientTape::create(p, go);
    if (!tape.ok()) continue;  // nothing to differentiate (no carrying leaf)
    auto bt = BatchGradientTape::create(p, tape->outputs(), go);
    ASSERT_TRUE(bt.ok()) << bt.error().message;
    const std::size_t count = 300, nout = tape->outputs().size(), nleaves = tape->leaves().size();
    std::vector<std::vector<double>> cols(bt->inputs().size());
    std::vector<std::vector<double>> seeds(nout);
    std::vector<double> want_out(nout * count), want_grads(nleaves * count);
    std::vector<std::string> want_error(count);
    for (std::size_t c = 0; c < count; ++c) {
      Env env = random_point(rng, p);
      for (std::size_t k = 0; k < cols.size(); ++k) cols[k].push_back(env.inputs.at(bt->inputs()[k]));
      std::vector<double> seed(nout), vals(nout), g(nleaves, 0.0);
      for (std::size_t o = 0; o < nout; ++o) seeds[o].push_back(seed[o] = std::uniform_real_distribution<double>(-2, 2)(rng));
      Status s = tape->forward(env, vals);
      if (s) s = tape->reverse(seed, g);
      if (!s) want_error[c] = s.error().message;
      for (std::size_t o = 0; o < nout; ++o) want_out[o * count + c] = vals[o];
      for (std::size_t k = 0; k < nleaves; ++k) want_grads[k * count + c] = s ? g[k] : 0.0;
    }
    std::vector<std::span<const double>> col_spans(cols.begin(), cols.end()), seed_spans(seeds.begin(), seeds.end());
    std::vector<double> got_out(nout * count), gin(bt->input_leaf_count() * count), gpar(bt->parameter_leaf_count());
    BatchRecord rec;
    const BatchGradOptions masked{1, true};
    ASSERT_TRUE(bt->forward(col_spans, count, {}, got_out, &rec, masked).ok());
    CaseErrors errors;
    ASSERT_TRUE(bt->reverse(rec, seed_spans, gin, gpar, masked, &errors).ok());
    std::size_t e = 0;
    for (std::size_t c = 0; c < count; ++c) {
      if (!want_error[c].empty()) {
        ++failing;
        ASSERT_LT(e, errors.size());
        EXPECT_EQ(errors[e].first, c);
        EXPECT_EQ(errors[e].second.message, want_error[c]);
        ++e;
        continue;
      }
      for (std::size_t o = 0; o < nout; ++o)
        EXPECT_EQ(bits(got_out[o * count + c]), bits(want_out[o * count + c])) << "case " << c << " output " << o;
    }
    EXPECT_EQ(e, errors.size());
    std::size_t row = 0;
    for (std::size_t k = 0; k < nleaves; ++k) {
      if (tape->leaves()[k].op != Op::Input) continue;
      for (std::size_t c = 0; c < count; ++c)
        EXPECT_EQ(bits(gin[row * count + c]), bits(want_grads[k * count + c])) << "case " << c << " leaf " << k;
      ++row;
    }
    ++programs;
    const PlanStatus ps = bt->plan_status();
    if (ps.compiled) {
      ++compiled;
      lanes += ps.compiled_cases;
      handed_back += ps.handed_back;
    }
  }
  std::printf("corpus through the compiled batch tape: %d of %d programs compiled, %llu lanes, %llu handed back, %d failing cases\n",
              compiled, programs, static_cast<unsigned long long>(lanes), static_cast<unsigned long long>(handed_back), failing);
  EXPECT_GT(programs, 20);
  EXPECT_GT(compiled * 2, programs);
  EXPECT_LT(handed_back * 2, lanes);
}

}  // namespace
}  // namespace tc
