// Lexer and parser: Python's literal and layout rules, list_functions, and
// robustness against hostile input (no crash, no stack overflow).
#include <gtest/gtest.h>

#include <pthread.h>

#include <random>

#include "frontend/lexer.h"
#include "frontend/parser.h"
#include "frontend_util.h"

namespace tc {
namespace {

double literal_value(const std::string& text) {
  auto c = test::compile_text("def f(a):\n    return " + text + "\n", {"a=int32:0:1"});
  EXPECT_TRUE(c.ok()) << text << ": " << c.error().format();
  if (!c) return std::nan("");
  const Program& p = c->program;
  return p.nodes[static_cast<std::size_t>(p.outputs[0].second)].value;
}

TEST(Lexer, NumberLiterals) {
  EXPECT_EQ(literal_value("1_000"), 1000);
  EXPECT_EQ(literal_value("0x1f"), 31);
  EXPECT_EQ(literal_value("0X_FF"), 255);
  EXPECT_EQ(literal_value("0o17"), 15);
  EXPECT_EQ(literal_value("0b1010"), 10);
  EXPECT_EQ(literal_value("1e3"), 1000);
  EXPECT_EQ(literal_value("1.5e-3"), 0.0015);
  EXPECT_EQ(literal_value(".5"), 0.5);
  EXPECT_EQ(literal_value("5."), 5);
  EXPECT_EQ(literal_value("0.1"), 0.1);
  EXPECT_EQ(literal_value("000"), 0);
  EXPECT_EQ(literal_value("1_0.2_5"), 10.25);
}

TEST(Lexer, BadLiteralsAreLocatedErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"1__0", "invalid decimal literal"},
      {"1_", "invalid decimal literal"},
      {"0x", "invalid hexadecimal literal"},
      {"12abc", "invalid decimal literal"},
      {"1e", "invalid decimal literal"},
      {"09", "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"},
      {"2j", "complex number literals are not supported; use real numbers"},
  };
  for (const auto& [bad, message] : cases) {
    auto c = test::compile_text(std::string("def f(a):\n    return ") + bad + "\n", {"a=int32:0:1"});
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().loc, (SourceLoc{2, 12})) << bad << ": " << c.error().format();
    EXPECT_EQ(c.error().message, message) << bad;
  }
}

TEST(Lexer, LayoutRules) {
  // Comments, blank lines, implicit joining in brackets, backslash
  // continuation, tabs, CRLF line ends and a semicolon-separated line.
  const char* src =
      "# leading comment\r\n"
      "\r\n"
      "def f(a,\r\n"
      "      b):  # trailing comment\r\n"
      "\tx = (a +\r\n"
      "\t     b)\r\n"
      "\r\n"
      "\t   # indented comment\r\n"
      "\ty = x + \\\r\n"
      "\t    1; z = y * 2\r\n"
      "\treturn z\r\n";
  auto c = test::compile_text(src, {"a=int32:0:3", "b=int32:0:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  auto r = test::evaluate(c->program, {{"a", 2}, {"b", 3}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].second, 12);
  // The parameter b sits on line 4, column 7.
  EXPECT_EQ(c->program.nodes[1].location, (SourceLoc{4, 7}));
}

TEST(Lexer, DocstringsAreSkipped) {
  auto c = test::compile_text("'''module doc'''\ndef f(a):\n    \"\"\"doc\n    more\"\"\"\n    return a\n", {"a=int32:0:1"});
  EXPECT_TRUE(c.ok()) << c.error().format();
}

TEST(Parser, ListFunctions) {
  auto fs = list_functions("def f(a, b):\n    return a\n\n@dec\ndef g():\n    while True:\n        pass\n", "m.py");
  ASSERT_TRUE(fs.ok()) << fs.error().format();
  ASSERT_EQ(fs->size(), 2u);
  EXPECT_EQ((*fs)[0].name, "f");
  EXPECT_EQ((*fs)[0].parameters, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*fs)[0].location, (SourceLoc{1, 1}));
  EXPECT_EQ((*fs)[1].name, "g");
  EXPECT_TRUE((*fs)[1].parameters.empty());
  auto bad = list_functions("def f(:\n", "m.py");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().file, "m.py");
  EXPECT_EQ(bad.error().loc, (SourceLoc{1, 6}));  // '(' was never closed
}

TEST(Parser, OtherFunctionsMayUseAnything) {
  // Only the chosen function has to stay inside the subset.
  const char* src =
      "def helper(x):\n    while x:\n        x = [i for i in range(x)]\n    return len(x)\n\n"
      "def f(a):\n    return a + 1\n";
  auto c = test::compile_text(src, {"a=int32:0:3"}, "f");
  EXPECT_TRUE(c.ok()) << c.error().format();
}

TEST(Robustness, DeepParenthesesAreRefused) {
  std::string deep = "def f(a):\n    return " + std::string(100000, '(') + "a" + std::string(100000, ')') + "\n";
  auto c = test::compile_text(deep, {"a=int32:0:1"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("nested too deeply"), std::string::npos);
}

TEST(Robustness, TheBracketLimitIsTheOneTheMessageNames) {
  // The message says "more than 200 levels": 198 brackets inside a function
  // body (one level for the block, one for the name) compile, 250 do not.
  auto nested = [](int n) {
    return "def f(a):\n    return " + std::string(n, '(') + "a" + std::string(n, ')') + "\n";
  };
  for (int n : {99, 150, 198}) {
    auto c = test::compile_text(nested(n), {"a=int32:0:1"});
    EXPECT_TRUE(c.ok()) << n << " brackets: " << c.error().format();
  }
  auto c = test::compile_text(nested(250), {"a=int32:0:1"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("more than 200 levels"), std::string::npos) << c.error().format();
}

TEST(Robustness, DeepUnaryAndNotChains) {
  for (const std::string op : {"-", "not ", "+"}) {
    std::string src = "def f(a):\n    return ";
    for (int i = 0; i < 50000; ++i) src += op;
    src += "a\n";
    auto c = test::compile_text(src, {"a=int32:0:1"});
    ASSERT_FALSE(c.ok()) << op;
    EXPECT_NE(c.error().message.find("nested too deeply (more than 200 levels"), std::string::npos)
        << op << ": " << c.error().format();
  }
}

TEST(Robustness, PowerAndElifChains) {
  std::string pow = "def f(a):\n    return a";
  for (int i = 0; i < 100000; ++i) pow += " ** a";
  {
    auto c = test::compile_text(pow + "\n", {"a=int32:0:1"});
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().message.find("nested too deeply"), std::string::npos) << c.error().format();
  }
  std::string elifs = "def f(a):\n    if a == 0:\n        return 0\n";
  for (int i = 1; i < 100000; ++i) elifs += "    elif a == " + std::to_string(i) + ":\n        return " + std::to_string(i) + "\n";
  elifs += "    return -1\n";
  auto c = test::compile_text(elifs, {"a=int32:0:1"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("nested too deeply"), std::string::npos);
  // A long but reasonable elif chain compiles.
  std::string some = "def f(a):\n    if a == 0:\n        return 0\n";
  for (int i = 1; i < 150; ++i) some += "    elif a == " + std::to_string(i) + ":\n        return " + std::to_string(i) + "\n";
  auto ok = test::compile_text(some + "    return -1\n", {"a=int32:0:200"});
  ASSERT_TRUE(ok.ok()) << ok.error().format();
  auto r = test::evaluate(ok->program, {{"a", 77}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].second, 77);
}

TEST(Robustness, LongOperatorChains) {
  auto chain = [](int n) {
    std::string s = "def f(a):\n    return a";
    for (int i = 0; i < n; ++i) s += " + a";
    return s + "\n";
  };
  EXPECT_TRUE(test::compile_text(chain(500), {"a=int32:0:1"}).ok());
  auto c = test::compile_text(chain(50000), {"a=int32:0:1"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("too deeply nested"), std::string::npos);
}

// Sanitizer builds (CI's AddressSanitizer tree) put redzones in every frame.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kStackScale = 16;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr std::size_t kStackScale = 16;
#else
constexpr std::size_t kStackScale = 1;
#endif
#else
constexpr std::size_t kStackScale = 1;
#endif

// The deepest expression the parser accepts (a sum of 999 terms) goes
// through the resolver and the lowering, which recurse once per level, in a
// thread with 1 MiB of stack: the frames stay small (about 0.6 MiB is used
// in a release build; a regression that grows them crashes this test).
TEST(Robustness, DeepestExpressionFitsInOneMiBOfStack) {
  struct Job {
    std::string source;
    bool ok = false;
    std::string error;
  } job;
  job.source = "def f(a):\n    return a";
  for (int k = 1; k < 999; ++k) job.source += " + a";
  job.source += "\n";
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, kStackScale << 20), 0);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    auto* j = static_cast<Job*>(p);
    auto c = test::compile_text(j->source, {"a=int32:0:1"});
    j->ok = c.ok();
    if (!c.ok()) j->error = c.error().format();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, &job), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  EXPECT_TRUE(job.ok) << job.error;
}

TEST(Robustness, MutatedCorpusNeverCrashes) {
  // Random byte edits of real programs: every outcome is a value (a program
  // or a located error), never a crash or hang.
  std::mt19937 rng(12345);
  const std::string dir = std::string(TC_TEST_DATA) + "/corpus";
  auto files = test::python_files(dir);
  ASSERT_FALSE(files.empty());
  const std::string alphabet = "()[]{}:=+-*/%<>!,.;#\\'\"\n\t 019aeifx_";
  int compiled = 0, rejected = 0;
  for (int k = 0; k < 1500; ++k) {
    test::CaseFile c = test::load_case(dir + "/" + files[static_cast<std::size_t>(k) % files.size()]);
    std::string s = c.source;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !s.empty(); ++e) {
      std::size_t pos = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[pos] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(pos, 1 + rng() % 3); break;
        default: s.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    auto r = compile_python(s, c.options);
    if (r.ok()) {
      ++compiled;
      EXPECT_TRUE(validate(r->program).ok());
    } else {
      ++rejected;
      EXPECT_FALSE(r.error().message.empty());
      EXPECT_EQ(r.error().message.find("internal error"), std::string::npos) << r.error().format() << "\n" << s;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(compiled, 0);
}

}  // namespace
}  // namespace tc
