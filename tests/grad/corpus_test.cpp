// Finite-difference checks over the shared corpus (tests/data/corpus/*.py):
// every function is compiled, then differentiated in exact and relaxed
// semantics at random points away from decision boundaries, and reverse-mode
// gradients must match central differences.
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <random>
#include <sstream>

#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "frontend/compile.h"
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

}  // namespace
}  // namespace tc
