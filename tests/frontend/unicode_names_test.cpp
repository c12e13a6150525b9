// Names and source text follow CPython 3.11 (issue 13, defect 11; each case
// below was accepted before and checked against /usr/bin/python3):
// identifiers are NFKC-normalised, only XID_Start/XID_Continue characters
// make a name, tabs and spaces must be used consistently, and the source
// must be valid UTF-8.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "frontend/unicode_names.h"
#include "frontend_util.h"

namespace tc {
namespace {

double run_once(const std::string& src) {
  auto c = test::compile_text(src, {"a=int32:0:3"});
  EXPECT_TRUE(c.ok()) << c.error().format();
  if (!c.ok()) return -1;
  auto out = test::evaluate(c->program, {{"a", 1}});
  EXPECT_TRUE(out.ok());
  return out.ok() ? out->front().second : -1;
}

TEST(UnicodeNames, NamesAreNfkcNormalisedAsCPythonDoes) {
  // CPython: H and ℌ (U+210C) are the same name, so f returns 2.
  EXPECT_EQ(run_once("def f(a):\n    H = 1\n    \u210c = 2\n    return H\n"), 2);
  // Fullwidth letters and the ligature ﬁ fold to ASCII names.
  EXPECT_EQ(run_once("def f(a):\n    fix = 5\n    return \ufb01x + \uff41\n"), 6);
  // A composed and a decomposed é are one name.
  EXPECT_EQ(run_once("def f(a):\n    caf\u00e9 = 7\n    return cafe\u0301\n"), 7);
}

TEST(UnicodeNames, CharactersOutsideNamesAreRefusedLikeCPython) {
  struct Case {
    const char* src;
    const char* message;
    int line, column;
  };
  const Case cases[] = {
      {"def f(a):\n    x\u200b = a\n    return a\n", "invalid non-printable character U+200B", 2, 6},
      {"def f(a):\n    return a \u20ac 1\n", "invalid character '\u20ac' (U+20AC)", 2, 14},
      {"def f(a):\n    \u00b2x = a\n    return a\n", "invalid character '\u00b2' (U+00B2)", 2, 5},
  };
  for (const Case& c : cases) {
    auto r = test::compile_text(c.src, {"a=int32:0:3"});
    ASSERT_FALSE(r.ok()) << c.src;
    EXPECT_EQ(r.error().message, c.message) << c.src;
    EXPECT_EQ(r.error().loc, (SourceLoc{c.line, c.column})) << r.error().format();
  }
}

TEST(UnicodeNames, InconsistentTabsAndSpacesAreATabError) {
  // Line 2 is indented by 4 spaces, line 3 by a tab: deeper at 8 columns a
  // tab, shallower at 1. CPython: TabError on line 3.
  auto r = test::compile_text("def f(a):\n    if a:\n\treturn 1\n        return 2\n", {"a=int32:0:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "inconsistent use of tabs and spaces in indentation");
  EXPECT_EQ(r.error().loc->line, 3);
  // Tabs alone, or tabs then the same tabs plus spaces, are fine.
  EXPECT_EQ(run_once("def f(a):\n\tif a:\n\t\treturn 1\n\treturn 2\n"), 1);
  EXPECT_EQ(run_once("def f(a):\n\tif a:\n\t    return 3\n\treturn 2\n"), 3);
}

TEST(UnicodeNames, InvalidUtf8IsRefusedWhereItIs) {
  // `python3 FILE.py` refuses a non-UTF-8 byte anywhere, comments included.
  for (const std::string bad : {std::string("\xff"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
                                std::string("\xe2\x82")}) {
    auto r = test::compile_text("def f(a):\n    return a  # caf" + bad + "\n", {"a=int32:0:3"});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("not valid utf-8"), std::string::npos) << r.error().format();
    EXPECT_EQ(r.error().loc, (SourceLoc{2, 20})) << r.error().format();
  }
}

TEST(UnicodeNames, NfkcMatchesPythonOnTrickySequences) {
  // Canonical reordering and composition, Hangul, a compatibility expansion.
  EXPECT_EQ(py::nfkc(U"a\u0323\u0307"), U"\u1ea1\u0307");       // dot below composes first
  EXPECT_EQ(py::nfkc(U"\u1100\u1161\u11a8"), U"\uac01");         // L V T -> one syllable
  EXPECT_EQ(py::nfkc(U"\ufdfa").size(), 18u);                    // the longest expansion
  EXPECT_EQ(py::nfkc(U"\u212b"), U"\u00c5");                     // angstrom sign
  EXPECT_TRUE(py::is_xid_start(U'\u210c'));
  EXPECT_FALSE(py::is_xid_continue(U'\u200b'));
  EXPECT_FALSE(py::is_printable(U'\u200b'));
}

// The generated tables against the Python they were generated from: NFKC of
// every code point, and of random base + combining-mark sequences, must equal
// unicodedata.normalize. (Skipped without /usr/bin/python3.)
TEST(UnicodeNames, NfkcEqualsUnicodedataOnEveryCodePoint) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const auto dir = std::filesystem::temp_directory_path() / ("tc_nfkc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto expected = (dir / "nfkc.txt").string();
  const std::string script =
      "import random, unicodedata as u\n"
      "random.seed(7)\n"
      "marks = [0x301, 0x300, 0x327, 0x323, 0x308, 0x31B, 0x345, 0x334, 0x5B0, 0x93C, 0x1161, 0x11A8, 0x3099]\n"
      "bases = [0x41, 0x65, 0x6F, 0x55, 0x1100, 0xAC00, 0x3B1, 0x304B, 0x928, 0x1E36, 0x212B]\n"
      "seqs = [[c] for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]\n"
      "for _ in range(5000):\n"
      "    seqs.append([random.choice(bases)] + [random.choice(marks) for _ in range(random.randint(0, 4))])\n"
      "with open(__import__('sys').argv[1], 'w') as f:\n"
      "    for s in seqs:\n"
      "        n = u.normalize('NFKC', ''.join(map(chr, s)))\n"
      "        f.write(' '.join('%X' % c for c in s) + ':' + ' '.join('%X' % ord(c) for c in n) + '\\n')\n";
  const auto script_path = (dir / "nfkc.py").string();
  std::ofstream(script_path) << script;
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script_path + " " + expected).c_str()), 0);
  std::ifstream in(expected);
  std::string line;
  std::size_t checked = 0, wrong = 0;
  auto parse = [](const std::string& text) {
    std::u32string out;
    std::istringstream items(text);
    std::string hex;
    while (items >> hex) out += static_cast<char32_t>(std::stoul(hex, nullptr, 16));
    return out;
  };
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    const std::u32string source = parse(line.substr(0, colon)), normal = parse(line.substr(colon + 1));
    ++checked;
    if (py::nfkc(source) != normal && ++wrong <= 5) ADD_FAILURE() << "nfkc differs from python for " << line;
  }
  std::filesystem::remove_all(dir);
  EXPECT_EQ(wrong, 0u);
  EXPECT_GT(checked, 1110000u);
}

}  // namespace
}  // namespace tc
