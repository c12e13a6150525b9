// `tensorcode prove` through the binary: verdicts and exit statuses (0
// proved, 1 disproved, 4 unknown, 3 refused, 2 usage), the JSON fields, and
// every counterexample re-run with `tensorcode run A --set ...` exactly as
// printed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;
using testing::temp_dir;
using testing::write_temp;

/// The counterexample's "set" text as `run` arguments.
std::vector<std::string> run_args(const std::string& program, const std::string& set) {
  std::vector<std::string> args = {"run", program};
  std::istringstream in(set);
  std::string word;
  while (in >> word) args.push_back(word);
  return args;
}

TEST(ProveCli, EquivalentSourcesExitZero) {
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py", "def f(x):\n    return x * 2.0\n");
  const std::string b = write_temp(dir, "b.py", "def f(x):\n    return x + x\n");
  auto r = run_cli({"prove", a, b, "--input", "x=float64", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "equivalent");
  EXPECT_EQ(j["solvers"]["z3"], "unsat");
  EXPECT_TRUE(j["solvers"].contains("cvc5"));
  EXPECT_TRUE(j["seconds"].is_number());
  EXPECT_FALSE(j.contains("counterexample"));
}

TEST(ProveCli, DifferentSourcesPrintACounterexampleThatRunReproduces) {
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py",
                                   "# tensorcode: input x=float32:-1:1 y=float32:-1:1 z=float32:-1:1\n"
                                   "# tensorcode: compile dtype=float32\n"
                                   "def f(x, y, z):\n    return (x + y) + z\n");
  const std::string b = write_temp(dir, "b.py",
                                   "# tensorcode: input x=float32:-1:1 y=float32:-1:1 z=float32:-1:1\n"
                                   "# tensorcode: compile dtype=float32\n"
                                   "def f(x, y, z):\n    return x + (y + z)\n");
  auto r = run_cli({"prove", a, b, "--json"});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "different");
  const auto& cex = j["counterexample"];
  ASSERT_TRUE(cex["inputs"].is_object());
  EXPECT_EQ(cex["inputs"].size(), 3u);
  for (const auto& [side, path] : {std::pair{"a", a}, std::pair{"b", b}}) {
    auto run = run_cli(run_args(path, cex["set"].get<std::string>()));
    ASSERT_EQ(run.status, 0) << run.err;
    auto out = nlohmann::json::parse(run.out);
    EXPECT_EQ(out["result"].get<double>(), cex[side]["result"].get<double>()) << run.out << " " << cex.dump();
  }
  EXPECT_NE(cex["a"]["result"].get<double>(), cex["b"]["result"].get<double>());
}

TEST(ProveCli, CannotFailAndCanFail) {
  const std::string dir = temp_dir();
  const std::string safe = write_temp(dir, "safe.py", "def f(x):\n    return (x + 1.0) * 0.5\n");
  auto r = run_cli({"prove", safe, "--input", "x=float64:-1e300:1e300", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["verdict"], "cannot-fail");

  const std::string risky = write_temp(dir, "risky.py",
                                       "# tensorcode: input x=int32:-1000:1000\n"
                                       "def f(x):\n    return 100 // (x - 17)\n");
  r = run_cli({"prove", risky, "--json"});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "can-fail");
  EXPECT_EQ(j["counterexample"]["inputs"]["x"], 17);
  EXPECT_TRUE(j["counterexample"]["node"].is_number());
  EXPECT_NE(j["counterexample"]["message"].get<std::string>().find("division by zero"), std::string::npos);
  auto run = run_cli(run_args(risky, j["counterexample"]["set"].get<std::string>()));
  EXPECT_EQ(run.status, 3);
  EXPECT_NE(run.err.find("division by zero"), std::string::npos) << run.err;
}

TEST(ProveCli, TheTextFormSaysTheVerdictAndHowToReproduce) {
  const std::string dir = temp_dir();
  const std::string risky = write_temp(dir, "risky.py", "def f(x):\n    return 1.0 / x\n");
  auto r = run_cli({"prove", risky, "--input", "x=int32:0:3"});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  // Whichever solver finds it first (the other is stopped) reports sat.
  EXPECT_EQ(r.out.rfind("can-fail (z3: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(": sat"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reproduce: tensorcode run " + risky + " --set x=0"), std::string::npos) << r.out;
}

TEST(ProveCli, ATimeLimitTooShortIsUnknown) {
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py", "def f(x, y, z):\n    return (x * y) * z\n");
  const std::string b = write_temp(dir, "b.py", "def f(x, y, z):\n    return x * (y * z)\n");
  auto r = run_cli({"prove", a, b, "--input", "x=float64", "--input", "y=float64", "--input", "z=float64",
                    "--timeout", "0.001", "--json"});
  // Usually "unknown" at once. Z3 4.8.12 does not look at its time limit in
  // every phase, though: in a loaded sanitizer run it went on for 62 s and
  // found the (real) counterexample of the reassociation. A too-short limit
  // may therefore end in a correct "different", never in "equivalent".
  ASSERT_TRUE(r.status == 4 || r.status == 1) << r.status << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  if (r.status == 4) {
    EXPECT_EQ(j["verdict"], "unknown");
    EXPECT_TRUE(j["reason"].is_string());
  } else {
    EXPECT_EQ(j["verdict"], "different");
    EXPECT_TRUE(j["counterexample"].is_object()) << r.out;
  }
}

TEST(ProveCli, RefusalsAreLocatedAndExitThree) {
  const std::string dir = temp_dir();
  const std::string s = write_temp(dir, "s.py", "def f(x):\n    return sigmoid(x) + 1.0\n");
  auto r = run_cli({"prove", s, "--input", "x=float64"});
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_NE(r.err.find("s.py:2:12: error:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(sigmoid)"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  const std::string a = write_temp(dir, "a.py", "# tensorcode: input x=float64\ndef f(x):\n    return x\n");
  const std::string b = write_temp(dir, "b.py", "# tensorcode: input y=float64\ndef f(y):\n    return y\n");
  r = run_cli({"prove", a, b});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("input 'x' of the first program is not an input of the second"), std::string::npos) << r.err;
}

TEST(ProveCli, OptimizeProveWritesOnlyAProvedResult) {
  const std::string dir = temp_dir();
  // Foldable constants and a multiply-add chain the packer turns into affine.
  const std::string src = write_temp(dir, "f.py",
                                     "# tensorcode: input x=float64:-100:100 y=float64:-100:100\n"
                                     "def f(x, y):\n    k = 2.0 * 3.0\n    return x * k + y * 0.5 + 1.0\n");
  const std::string out = dir + "/f_opt.json";
  auto r = run_cli({"optimize", src, "--prove", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("optimize: proved equivalent (z3: unsat"), std::string::npos) << r.err;
  // The written artifact is the one proved: prove it again from the file.
  auto again = run_cli({"prove", src, out, "--json"});
  EXPECT_EQ(again.status, 0) << again.out << again.err;

  const std::string sig = write_temp(dir, "s.py", "def f(x):\n    return sigmoid(x * 1.0)\n");
  const std::string sig_out = dir + "/s_opt.json";
  r = run_cli({"optimize", sig, "--input", "x=float64", "--prove", "-o", sig_out});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("s.py:2:12: error: --prove: node"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(sigmoid)"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(sig_out).good()) << "nothing is written without a proof";
}

TEST(ProveCli, ReplaceProveAcceptsAProvedCandidateOverFloatDomains) {
  const std::string dir = temp_dir();
  const std::string original = write_temp(dir, "o.py", "# tensorcode: input x=float64 y=int32\n"
                                                      "def f(x, y):\n    return x * 2.0 + y\n");
  const std::string good = write_temp(dir, "g.py", "# tensorcode: input x=float64 y=int32\n"
                                                  "def f(x, y):\n    return (x + x) + y\n");
  const std::string out = dir + "/g.json";
  // Enumeration refuses these domains; the proof accepts.
  auto r = run_cli({"replace", original, good, "-o", out});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_FALSE(std::ifstream(out).good());
  r = run_cli({"replace", original, good, "--prove", "-o", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["proof"]["verdict"], "equivalent");
  EXPECT_EQ(j["proof"]["solvers"]["z3"], "unsat");
  EXPECT_TRUE(std::ifstream(out).good()) << "the accepted candidate is written";
  auto again = run_cli({"prove", original, out, "--json"});
  EXPECT_EQ(again.status, 0) << again.out << again.err;
}

TEST(ProveCli, ReplaceProveRefusesWithTheCounterexampleAndWritesNothing) {
  const std::string dir = temp_dir();
  const std::string original = write_temp(dir, "o.py", "# tensorcode: input x=float64:-1:1\n"
                                                      "def f(x):\n    return x * 1.0\n");
  const std::string bad = write_temp(dir, "b.py", "# tensorcode: input x=float64:-1:1\n"
                                                 "def f(x):\n    return (x + 1.0) - 1.0\n");
  const std::string out = dir + "/b.json";
  auto r = run_cli({"replace", original, bad, "--prove", "-o", out});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_FALSE(std::ifstream(out).good()) << "nothing is written on refusal";
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["proof"]["verdict"], "different");
  EXPECT_NE(j["reason"].get<std::string>().find("the candidate differs from the original at x="), std::string::npos)
      << j.dump();
  EXPECT_NE(r.err.find("error: replacement refused: the candidate differs"), std::string::npos) << r.err;
  // The counterexample reproduces: the two programs disagree on it.
  const std::string set = j["proof"]["counterexample"]["set"].get<std::string>();
  auto ra = run_cli(run_args(original, set)), rb = run_cli(run_args(bad, set));
  ASSERT_EQ(ra.status, 0);
  ASSERT_EQ(rb.status, 0);
  EXPECT_NE(nlohmann::json::parse(ra.out)["result"], nlohmann::json::parse(rb.out)["result"]);

  // No proof within the limit: exit 4, nothing written.
  // (equal, but neither solver proves it within 30 s: binary64 products and
  // a quotient)
  const std::string slow_a = write_temp(dir, "sa.py", "# tensorcode: input x=float64 y=float64\n"
                                                     "def f(x, y):\n    return (x * 3.0) / y\n");
  const std::string slow_b = write_temp(dir, "sb.py", "# tensorcode: input x=float64 y=float64\n"
                                                     "def f(x, y):\n    return (x * 2.0 + x) / y\n");
  r = run_cli({"replace", slow_a, slow_b, "--prove", "--prove-timeout", "0.3", "-o", out});
  EXPECT_EQ(r.status, 4) << r.out << r.err;
  EXPECT_FALSE(std::ifstream(out).good());
  EXPECT_NE(r.err.find("no proof that the candidate equals the original"), std::string::npos) << r.err;

  // A structural refusal comes first (exit 3, no proof run).
  const std::string other = write_temp(dir, "x.py", "# tensorcode: input x=float64:-2:2\n"
                                                   "def f(x):\n    return x\n");
  r = run_cli({"replace", original, other, "--prove"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["proof"].is_null());
}

TEST(ProveCli, AnalyzeWarningsPointToProve) {
  const std::string dir = temp_dir();
  const std::string risky = write_temp(dir, "r.py", "# tensorcode: input x=int32:-1000:1000\n"
                                                   "def f(x):\n    return 100 // (x - 17)\n");
  auto r = run_cli({"analyze", risky});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(nlohmann::json::parse(r.out)["warnings"].empty());
  EXPECT_NE(r.err.find("hint: the intervals cannot tell whether 1 warning(s) can really happen; `tensorcode prove " +
                       risky + "`"),
            std::string::npos)
      << r.err;
  // No warning, no hint; a program the solvers cannot take, no hint either.
  const std::string safe = write_temp(dir, "s.py", "# tensorcode: input x=int32:-1000:1000\n"
                                                  "def f(x):\n    return x + 1\n");
  r = run_cli({"analyze", safe});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("hint:"), std::string::npos) << r.err;
  const std::string sig = write_temp(dir, "g.py", "# tensorcode: input x=float64\n"
                                                 "def f(x):\n    return sigmoid(x) / x\n");
  r = run_cli({"analyze", sig});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(nlohmann::json::parse(r.out)["warnings"].empty());
  EXPECT_EQ(r.err.find("hint:"), std::string::npos) << r.err;
}

TEST(ProveCli, UsageErrorsExitTwoAndHelpListsProve) {
  EXPECT_EQ(run_cli({"prove"}).status, 2);
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py", "def f(x):\n    return x\n");
  EXPECT_EQ(run_cli({"prove", a, "--atol", "-1"}).status, 2);
  EXPECT_EQ(run_cli({"prove", a, "--timeout", "0"}).status, 2);
  auto help = run_cli({"--help"});
  EXPECT_NE(help.out.find("prove"), std::string::npos);
}

}  // namespace
}  // namespace tc
