// Calls beyond the table's builtins: round, int, float, pow, divmod,
// isinstance and len, the math module, and functions of the same file
// (inlined at the call). Expected values were computed with CPython 3.11.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

#include "lower_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::Outcome;
using test::result;
using test::run;

TEST(Calls, RoundIsHalfEvenAsCPython) {
  const char* src = "def f(x):\n    return round(x)\n";
  const std::vector<std::pair<double, double>> cases = {
      {2.5, 2},   {3.5, 4},  {-2.5, -2}, {-0.5, 0}, {0.5, 0},  {1.5, 2},
      {2.4999999999999996, 2}, {-1e-20, 0}, {-0.7, -1}, {7.5, 8}, {-0.49999999999999994, 0},
      {4503599627370495.5, 4503599627370496}, {-4503599627370495.5, -4503599627370496}};
  for (const auto& [x, want] : cases)
    EXPECT_EQ(result(src, {"x=float64:-5e15:5e15"}, {{"x", x}}), want) << "round(" << x << ")";
  // round() of an int is that int; the result of round(float) is an int.
  EXPECT_EQ(result("def f(a):\n    return round(a) // 2\n", {"a=int32:-9:9"}, {{"a", -7}}), -4);
  EXPECT_EQ(result("def f(a):\n    return round(a, 2)\n", {"a=int32:-9:9"}, {{"a", -7}}), -7);
  EXPECT_EQ(result("def f(x):\n    return round(x, ndigits=2)\n", {"x=float64:-9:9"}, {{"x", 2.675}}), 2.67);
}

TEST(Calls, RoundToDigitsIsCPythonsDecimalRounding) {
  const std::vector<double> xs = {2.675, 0.125, 0.375, 1.005, 2.5, 0.285, -1.005, 1234.5678, 0.045, -0.045,
                                  1e-20, -2.675, 5.015, 8.345, 0.5, 1.5, -0.5, 123456.789012, 0.1 + 0.2};
  // CPython 3.11: [repr(round(x, n)) for x in xs] for n = 0, 1, 2.
  const std::vector<std::vector<double>> want = {
      {3.0, 0.0, 0.0, 1.0, 2.0, 0.0, -1.0, 1235.0, 0.0, -0.0, 0.0, -3.0, 5.0, 8.0, 0.0, 2.0, -0.0, 123457.0, 0.0},
      {2.7, 0.1, 0.4, 1.0, 2.5, 0.3, -1.0, 1234.6, 0.0, -0.0, 0.0, -2.7, 5.0, 8.3, 0.5, 1.5, -0.5, 123456.8, 0.3},
      {2.67, 0.12, 0.38, 1.0, 2.5, 0.28, -1.0, 1234.57, 0.04, -0.04, 0.0, -2.67, 5.01, 8.35, 0.5, 1.5, -0.5,
       123456.79, 0.3}};
  for (int n = 0; n < 3; ++n) {
    const std::string src = "def f(x):\n    return round(x, " + std::to_string(n) + ")\n";
    auto c = compile_text(src, {"x=float64:-1e6:1e6"});
    ASSERT_TRUE(c.ok()) << c.error().format();
    for (std::size_t k = 0; k < xs.size(); ++k) {
      auto r = test::evaluate(c->program, {{"x", xs[k]}});
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ((*r)[0].second, want[static_cast<std::size_t>(n)][k]) << "round(" << xs[k] << ", " << n << ")";
    }
  }
}

// round(x, n) against CPython itself on random values (fixed seed), when
// Debian's python3 is there: the decisions at .5 of the n-th digit are where
// a product x * 10^n rounded the wrong way would show.
/// The values one per line in `format` (a printf format of one double) in a
/// new temporary file, for a CPython process to read; its path, or "" when
/// it cannot be written.
std::string numbers_file(const std::vector<double>& xs, const char* format) {
  char path[] = "/tmp/tc-numbers-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return {};
  std::string text;
  char buf[64];
  for (double x : xs) text += (std::snprintf(buf, sizeof buf, format, x), buf);
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (written) return path;
  std::remove(path);
  return {};
}

TEST(Calls, RoundToDigitsAgreesWithCPythonOnRandomValues) {
  if (std::system("/usr/bin/python3 -c 'pass' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no /usr/bin/python3";
  std::mt19937_64 rng(2026);
  std::vector<double> xs;
  std::uniform_real_distribution<double> wide(-1e4, 1e4);
  std::uniform_int_distribution<int> cents(-1000000, 1000000);
  for (int k = 0; k < 1500; ++k) xs.push_back(wide(rng));
  for (int k = 0; k < 1500; ++k) xs.push_back(cents(rng) / 1000.0 + 0.0005);  // near the ties of round(x, 3)
  const std::string path = numbers_file(xs, "%.17g\n");
  ASSERT_FALSE(path.empty());
  const std::string cmd = std::string("/usr/bin/python3 -c \"import sys\n"
                                      "for l in open(sys.argv[1]):\n"
                                      "  x = float(l)\n"
                                      "  print(*(repr(round(x, n)) for n in range(5)))\" ") + path;
  FILE* py = popen(cmd.c_str(), "r");
  ASSERT_NE(py, nullptr);
  std::vector<std::vector<double>> want;
  char line[512];
  while (std::fgets(line, sizeof line, py)) {
    std::vector<double> row;
    for (char* tok = std::strtok(line, " \n"); tok; tok = std::strtok(nullptr, " \n")) row.push_back(std::strtod(tok, nullptr));
    want.push_back(row);
  }
  pclose(py);
  std::remove(path.c_str());
  ASSERT_EQ(want.size(), xs.size());
  for (int n = 0; n < 5; ++n) {
    auto c = compile_text("def f(x):\n    return round(x, " + std::to_string(n) + ")\n", {"x=float64:-2e4:2e4"});
    ASSERT_TRUE(c.ok()) << c.error().format();
    int wrong = 0;
    for (std::size_t k = 0; k < xs.size() && wrong < 5; ++k) {
      auto r = test::evaluate(c->program, {{"x", xs[k]}});
      ASSERT_TRUE(r.ok()) << r.error().message;
      if ((*r)[0].second != want[k][static_cast<std::size_t>(n)]) {
        ++wrong;
        ADD_FAILURE() << "round(" << xs[k] << ", " << n << "): circuit " << (*r)[0].second << ", CPython "
                      << want[k][static_cast<std::size_t>(n)];
      }
    }
  }
}

TEST(Calls, IntTruncatesFloatKeepsTheValue) {
  const char* src = "def f(x):\n    return int(x)\n";
  for (const auto& [x, want] : std::vector<std::pair<double, double>>{{-2.7, -2}, {2.7, 2}, {-0.3, 0}, {9.99, 9}})
    EXPECT_EQ(result(src, {"x=float64:-10:10"}, {{"x", x}}), want) << "int(" << x << ")";
  // float() makes an int a float: a / b of floats, // gives a float.
  Outcome r = run("def f(a):\n    return float(a) // 2\n", {"a=int32:-9:9"}, {{"a", 7}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.out[0].second, 3.0);
  // The result of int() of a float is an integer for the exactness rule.
  auto wide = compile_text("def f(x):\n    return int(x) * int(x)\n", {"x=float64:-1e10:1e10"});
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.error().message.find("beyond 2^53"), std::string::npos) << wide.error().format();
}

TEST(Calls, PowDivmodIsinstanceLen) {
  EXPECT_EQ(result("def f(a):\n    return pow(a, 10)\n", {"a=int32:-3:3"}, {{"a", 2}}), 1024);
  Outcome r = run("def f(a, b):\n    q, m = divmod(a, b)\n    return q, m\n", {"a=int32:-9:9", "b=int32:-3:3"},
                  {{"a", -7}, {"b", 2}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.out[0].second, -4);
  EXPECT_EQ(r.out[1].second, 1);
  EXPECT_FALSE(run("def f(a, b):\n    return divmod(a, b)\n", {"a=int32:-9:9", "b=int32:-3:3"}, {{"a", 1}, {"b", 0}})
                   .error.empty());
  // isinstance is decided from the value's type on its path.
  const char* inst = "def f(a, x):\n    return isinstance(a, int) + 2 * isinstance(x, (int, float)) + "
                     "4 * isinstance(x, int) + 8 * isinstance(a > 0, bool)\n";
  EXPECT_EQ(result(inst, {"a=int32:-3:3", "x=float64:-1:1"}, {{"a", 1}, {"x", 0.5}}), 1 + 2 + 8);
  EXPECT_EQ(result("def f(a):\n    t = [a, a, 1]\n    return len(t) + a\n", {"a=int32:-3:3"}, {{"a", 2}}), 5);
}

// A power of two constants with a float exponent is C's pow(), as CPython
// computes it (the dodecahedron's 5 ** (1 / 2)); CPython's exceptions for
// such a power are located errors (issue 40).
TEST(Calls, AConstantFloatPowerIsCPythonsPow) {
  EXPECT_EQ(result("def f(e):\n    return 3 * ((25 + 10 * (5 ** (1 / 2))) ** (1 / 2)) * (e ** 2) + 2 ** 0.5\n",
                   {"e=float64:0:10"}, {{"e", 1.5}}),
            47.867103378275196);
  EXPECT_EQ(result("def f(x):\n    return x + 2.0 ** (1 / 3)\n", {"x=float64:0:1"}, {{"x", 0}}), 1.2599210498948732);
  auto complex = compile_text("def f(x):\n    return x + (-8) ** (1 / 3)\n", {"x=float64:0:1"});
  ASSERT_FALSE(complex.ok());
  EXPECT_NE(complex.error().message.find("complex"), std::string::npos) << complex.error().message;
  EXPECT_EQ(complex.error().loc, (SourceLoc{2, 16}));
  auto over = compile_text("def f(x):\n    return x + 10.0 ** 400.0\n", {"x=float64:0:1"});
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("OverflowError"), std::string::npos) << over.error().message;
  // A run-time base or exponent keeps the rule of whole literal exponents.
  auto runtime = compile_text("def f(x):\n    return x ** 0.75\n", {"x=float64:0:1"});
  ASSERT_FALSE(runtime.ok());
  EXPECT_NE(runtime.error().message.find("integer literal exponent"), std::string::npos) << runtime.error().message;
  // x ** 0.5 is pow(x, 0.5) in CPython, not math.sqrt bit for bit: the
  // message says so and names math.sqrt.
  auto half = compile_text("def f(x):\n    return x ** 0.5\n", {"x=float64:0:1"});
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().message.find("use math.sqrt(x)"), std::string::npos) << half.error().message;
}

// An import of a standard module no function uses (doctest, timeit kept for
// a __main__ block) is ignored with a warning at the import; a module that
// may be missing (numpy), or one a function uses, stays refused (issue 40).
TEST(Calls, AnUnusedStandardImportIsIgnoredWithAWarning) {
  auto c = compile_text("import doctest\nfrom timeit import timeit as t\n\ndef f(x):\n    return x + 1\n",
                        {"x=int32:0:5"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  ASSERT_GE(c->warnings.size(), 2u);
  EXPECT_EQ(c->warnings[0].loc, (SourceLoc{1, 1}));
  EXPECT_NE(c->warnings[0].message.find("'doctest' is ignored"), std::string::npos) << c->warnings[0].message;
  EXPECT_EQ(c->warnings[1].loc, (SourceLoc{2, 1}));
  EXPECT_EQ(result("import doctest\n\ndef f(x):\n    return x + 1\n", {"x=int32:0:5"}, {{"x", 2}}), 3);
  for (const char* src : {"import numpy as np\n\ndef f(x):\n    return x\n",
                          "import itertools\n\ndef f(x):\n    return itertools.count(x)\n",
                          "from itertools import count\n\ndef f(x):\n    return count(x)\n",
                          "import doctest, numpy\n\ndef f(x):\n    return x\n"}) {
    auto r = compile_text(src, {"x=int32:0:5"});
    ASSERT_FALSE(r.ok()) << src;
    EXPECT_NE(r.error().message.find("is not supported"), std::string::npos) << r.error().message;
    EXPECT_EQ(r.error().loc, (SourceLoc{1, 1})) << src;
  }
}

TEST(Calls, MathModuleComposedMembers) {
  const char* src =
      "import math\n"
      "from math import floor as fl, pi\n"
      "def f(x):\n"
      "    return math.floor(x), math.ceil(x), math.trunc(x), fl(x), math.fabs(x), pi, math.e\n";
  Outcome r = run(src, {"x=float64:-10:10"}, {{"x", -2.5}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  const std::vector<double> want = {-3, -2, -2, -3, 2.5, 3.141592653589793, 2.718281828459045};
  ASSERT_EQ(r.out.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(r.out[k].second, want[k]) << r.out[k].first;
  r = run("import math\ndef f(x):\n    return math.radians(x), math.degrees(x), math.pow(x, 2)\n",
          {"x=float64:-200:200"}, {{"x", 180}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.out[0].second, 3.141592653589793);
  EXPECT_EQ(r.out[1].second, 180 * 57.29577951308232);
  EXPECT_EQ(r.out[2].second, 32400.0);
  EXPECT_EQ(result("import math\ndef f(x):\n    return math.radians(x)\n", {"x=float64:-200:200"}, {{"x", 45}}),
            0.7853981633974483);
  // Decided from the interval: finite domains hold only finite values.
  EXPECT_EQ(result("import math\ndef f(x):\n    return math.isfinite(x) and not math.isnan(x)\n",
                   {"x=float64:-1:1"}, {{"x", 0.5}}),
            1);
}

// The math module's functions with ops of their own (ir/math_functions.h)
// against CPython itself on values inside, at the edge of and outside each
// domain: the same bits (the sign of zero included), or both fail, with
// CPython's exception type where CPython raises ValueError.
TEST(Calls, MathFunctionsAgreeWithCPythonBitForBit) {
  if (std::system("/usr/bin/python3 -c 'pass' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no /usr/bin/python3";
  struct Fn {
    const char* call;
    const char* domain;
  };
  const Fn fns[] = {{"math.sqrt(x)", "x=float64:-1e6:1e6"},     {"math.exp(x)", "x=float64:-1e6:1e6"},
                    {"math.expm1(x)", "x=float64:-1e6:1e6"},  {"math.log(x)", "x=float64:-1e6:1e6"},
                    {"math.log2(x)", "x=float64:-1e6:1e6"},     {"math.log10(x)", "x=float64:-1e6:1e6"},
                    {"math.log1p(x)", "x=float64:-1e6:1e6"},    {"math.log(x, 3)", "x=float64:-1e6:1e6"},
                    {"math.log(7.5, x)", "x=float64:-1e6:1e6"}, {"math.sin(x)", "x=float64:-1e6:1e6"},
                    {"math.cos(x)", "x=float64:-1e6:1e6"},    {"math.tan(x)", "x=float64:-1e6:1e6"},
                    {"math.atan(x)", "x=float64:-1e6:1e6"},   {"math.tanh(x)", "x=float64:-1e6:1e6"}};
  std::mt19937_64 rng(40);
  std::vector<double> xs = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 1e-300, 4.9e-324, -1e-300, 709.78, 710.0, -745.2, 1e-17,
                            -0.9999999999999999, 100.0, 0.1, 3.0};
  std::uniform_real_distribution<double> small(-5, 5), wide(-800, 800);
  std::uniform_real_distribution<double> decades(-20, 6);
  for (int k = 0; k < 300; ++k) xs.push_back(small(rng));
  for (int k = 0; k < 300; ++k) xs.push_back(wide(rng));
  for (int k = 0; k < 300; ++k) xs.push_back(std::pow(10.0, decades(rng)));
  const std::string path = numbers_file(xs, "%a\n");  // hexadecimal: CPython reads them with float.fromhex
  ASSERT_FALSE(path.empty());
  for (const Fn& fn : fns) {
    SCOPED_TRACE(fn.call);
    const std::string cmd = std::string("/usr/bin/python3 -c \"import math, sys\n"
                                        "for l in open(sys.argv[1]):\n"
                                        "  x = float.fromhex(l)\n"
                                        "  try: print(float.hex(") +
                            fn.call + "))\n  except Exception as e: print(type(e).__name__)\" " + path;
    FILE* py = popen(cmd.c_str(), "r");
    ASSERT_NE(py, nullptr);
    std::vector<std::string> want;
    char line[512];
    while (std::fgets(line, sizeof line, py)) want.emplace_back(line, std::strcspn(line, "\n"));
    pclose(py);
    ASSERT_EQ(want.size(), xs.size());
    auto c = compile_text(std::string("import math\ndef f(x):\n    return ") + fn.call + "\n", {fn.domain});
    ASSERT_TRUE(c.ok()) << c.error().format();
    int wrong = 0;
    for (std::size_t k = 0; k < xs.size() && wrong < 5; ++k) {
      auto r = test::evaluate(c->program, {{"x", xs[k]}});
      std::string got;
      if (r.ok()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%a", (*r)[0].second);
        got = buf;
      }
      const bool py_raised = want[k].find("Error") != std::string::npos;
      bool same = false;
      if (py_raised) {
        // A ValueError is raised by name; CPython's OverflowError and
        // ZeroDivisionError are the circuit's non-finite result and division
        // by zero (verify counts any failure as agreeing with them).
        same = !r.ok() && (want[k] != "ValueError" || r.error().message.find("raised ValueError: math domain error") !=
                                                          std::string::npos);
      } else if (r.ok()) {
        same = std::strtod(want[k].c_str(), nullptr) == (*r)[0].second &&
               std::signbit(std::strtod(want[k].c_str(), nullptr)) == std::signbit((*r)[0].second);
      }
      if (!same) {
        ++wrong;
        ADD_FAILURE() << fn.call << " at x = " << xs[k] << ": circuit " << (r.ok() ? got : r.error().message)
                      << ", CPython " << want[k];
      }
    }
  }
  std::remove(path.c_str());
}

TEST(Calls, MathFunctionsSpellingsDomainsAndTypes) {
  // `from math import sqrt` spells the same op; an int argument gives a float.
  EXPECT_EQ(result("from math import sqrt, log\ndef f(a):\n    return sqrt(a) + log(a)\n", {"a=int32:1:9"}, {{"a", 4}}),
            2.0 + std::log(4.0));
  EXPECT_TRUE(std::signbit(result("import math\ndef f(x):\n    return math.sqrt(x)\n", {"x=float64:-1:1"}, {{"x", -0.0}})));
  // Inside the domain for every input: no raise node at all.
  auto inside = compile_text("import math\ndef f(x):\n    return math.sqrt(x) + math.log1p(x)\n", {"x=float64:0:9"});
  ASSERT_TRUE(inside.ok()) << inside.error().format();
  for (const Node& n : inside->program.nodes) EXPECT_NE(n.op, Op::Raise);
  // Outside: ValueError at the call, as CPython raises it.
  auto outside = compile_text("import math\ndef f(x):\n    y = 2 * x\n    return math.log(y)\n", {"x=float64:-9:9"});
  ASSERT_TRUE(outside.ok()) << outside.error().format();
  auto r = test::evaluate(outside->program, {{"x", 0.0}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("raised ValueError: math domain error"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().loc, (SourceLoc{4, 12}));
  // A bare sqrt is not a builtin (CPython: NameError), and members without
  // an op stay refused by name.
  auto bare = compile_text("def f(x):\n    return sqrt(x)\n", {"x=float64:0:9"});
  ASSERT_FALSE(bare.ok());
  auto asin = compile_text("import math\ndef f(x):\n    return math.asin(x)\n", {"x=float64:0:1"});
  ASSERT_FALSE(asin.ok());
  EXPECT_NE(asin.error().message.find("calling 'math.asin' is not supported yet"), std::string::npos)
      << asin.error().message;
  // Two arguments only for log (a base); one for the others.
  auto two = compile_text("import math\ndef f(x):\n    return math.sqrt(x, 2)\n", {"x=float64:0:9"});
  ASSERT_FALSE(two.ok());
}

TEST(Calls, HelpersAreInlinedWithTheirOwnNames) {
  const char* src =
      "def square_plus(a, b):\n"
      "    t = a * a\n"
      "    return t + b\n"
      "\n"
      "def clamp(x):\n"
      "    if x < 0:\n"
      "        return 0\n"
      "    return min(x, 10)\n"
      "\n"
      "def f(a):\n"
      "    t = square_plus(a, 1)\n"
      "    return clamp(t - 5) + clamp(square_plus(t, -100)) + t\n";
  auto c = compile_text(src, {"a=int32:-5:5"}, "f");
  ASSERT_TRUE(c.ok()) << c.error().format();
  // The helper's nodes carry the helper's locations.
  bool in_helper = false;
  for (const Node& n : c->program.nodes) in_helper = in_helper || (n.op == Op::Mul && n.location && n.location->line == 2);
  EXPECT_TRUE(in_helper);
  for (int a = -5; a <= 5; ++a) {
    const int t = a * a + 1;
    const int u = t * t - 100;
    const int want = (t - 5 < 0 ? 0 : std::min(t - 5, 10)) + (u < 0 ? 0 : std::min(u, 10)) + t;
    auto r = test::evaluate(c->program, {{"a", a}});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ((*r)[0].second, want) << "a = " << a;
  }
}

TEST(Calls, HelperCalledWithIntAndFloatIsTypedForBoth) {
  const char* src =
      "def half(v):\n"
      "    return v / 2\n"
      "\n"
      "def twice(v):\n"
      "    return v + v\n"
      "\n"
      "def f(a, x):\n"
      "    return twice(a) // 3, twice(x), half(a)\n";
  auto c = compile_text(src, {"a=int32:-9:9", "x=float64:-1:1"}, "f");
  ASSERT_TRUE(c.ok()) << c.error().format();
  auto r = test::evaluate(c->program, {{"a", 7}, {"x", 0.25}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)[0].second, 4);
  EXPECT_EQ((*r)[1].second, 0.5);
  EXPECT_EQ((*r)[2].second, 3.5);
}

TEST(Calls, RecursionThroughHelpersNamesTheCycle) {
  const char* src =
      "def a(x):\n"
      "    return b(x)\n"
      "\n"
      "def b(x):\n"
      "    return c(x) + 1\n"
      "\n"
      "def c(x):\n"
      "    return a(x - 1)\n";
  auto r = compile_text(src, {"x=int32:0:3"}, "a");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "recursion is not supported: 'a' calls 'b', which calls 'c', which calls 'a'; write the computation as "
            "a bounded loop");
  EXPECT_EQ(r.error().loc, (SourceLoc{8, 12}));
}

TEST(Calls, ImportsAtModuleLevelAndAnnotationsOfAnyType) {
  const char* src =
      "from __future__ import annotations\n"
      "from typing import Dict\n"
      "import math\n"
      "\n"
      "def f(x: float, n: int | None) -> Dict[str, float]:\n"
      "    y: list = x * 2\n"
      "    return math.floor(y) + n\n";
  EXPECT_EQ(result(src, {"x=float64:-4:4", "n=int32:0:3"}, {{"x", 1.75}, {"n", 2}}), 5);
  auto typing_value = compile_text("from typing import Dict\ndef f(x):\n    return Dict\n", {"x=float64:-1:1"});
  ASSERT_FALSE(typing_value.ok());
  EXPECT_EQ(typing_value.error().message, "'Dict' comes from 'typing': it may be used only in annotations");
}

TEST(Calls, ModuleConstantsAreFoldedAsCPythonComputesThem) {
  const char* src =
      "from math import pi\n"
      "G = 6.6743e-11\n"
      "K: float = 8.99 * 10**9\n"
      "N = 10 ** 3\n"
      "TWO_PI = 2 * pi\n"
      "\n"
      "def f(m):\n"
      "    return G * m, K, N // 7, TWO_PI\n";
  Outcome r = run(src, {"m=float64:0:10"}, {{"m", 3}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.out[0].second, 6.6743e-11 * 3);
  EXPECT_EQ(r.out[1].second, 8.99 * 1e9);
  EXPECT_EQ(r.out[2].second, 142);
  EXPECT_EQ(r.out[3].second, 2 * 3.141592653589793);
  // A local assignment hides the module constant, as in Python.
  EXPECT_EQ(result("G = 5\ndef f(a):\n    G = a\n    return G\n", {"a=int32:0:9"}, {{"a", 7}}), 7);
  auto not_constant = compile_text("X = [1, 2]\ndef f(a):\n    return a\n", {"a=int32:0:9"});
  ASSERT_FALSE(not_constant.ok());
  EXPECT_EQ(not_constant.error().loc, (SourceLoc{1, 5}));
}

TEST(Calls, MatchIsRefusedAsAStatementWhileMatchStaysAName) {
  auto m = compile_text("def f(a):\n    match a:\n        case 1:\n            return 1\n    return 0\n",
                        {"a=int32:0:3"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().loc, (SourceLoc{2, 5}));
  EXPECT_NE(m.error().message.find("match statements are not supported"), std::string::npos);
  EXPECT_EQ(result("def f(a):\n    match = a + 1\n    return match\n", {"a=int32:0:3"}, {{"a", 2}}), 3);
}

}  // namespace
}  // namespace tc
