// The shared corpus (tests/data/corpus/*.py, format in its README.md): every
// function compiled by our frontend and verified against the same source run
// by CPython worker processes, with atol = rtol = 0, exhaustively where the
// domains allow (default max_cases) and on the default 10,000 fixed-seed
// samples otherwise. One test per corpus file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/compile.h"
#include "verify/python_reference.h"
#include "verify/verify.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

std::string corpus_dir() { return std::string(TC_TEST_DATA) + "/corpus"; }

std::vector<std::string> corpus_files() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(corpus_dir(), ec))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

/// The header of a corpus file: leading `# key: value` comment lines.
struct Header {
  std::vector<std::pair<std::string, Domain>> inputs;
  std::string function;
  Dtype dtype = Dtype::Float64;
  std::string problem;  ///< a malformed header
};

Header parse_header(const std::string& text) {
  Header h;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty()) continue;
    if (line[0] != '#') break;
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trim(line.substr(1, colon - 1)), value = trim(line.substr(colon + 1));
    if (key == "inputs") {
      std::replace(value.begin(), value.end(), ',', ' ');
      std::istringstream items(value);
      std::string item;
      while (items >> item) {
        auto eq = item.find('=');
        if (eq == std::string::npos) {
          h.problem = "input '" + item + "' is not NAME=DOMAIN";
          continue;
        }
        auto d = parse_domain(item.substr(eq + 1));
        if (!d) {
          h.problem = "input '" + item + "': " + d.error().message;
          continue;
        }
        h.inputs.emplace_back(item.substr(0, eq), *d);
      }
    } else if (key == "function") {
      h.function = value;
    } else if (key == "dtype") {
      auto d = dtype_from(value);
      if (!d) h.problem = "unknown dtype '" + value + "'";
      else h.dtype = *d;
    } else if (key == "error" || key == "expect-error" || key == "rejects") {
      h.problem = "the corpus holds programs that compile: a rejection case belongs in tests/data/frontend/reject";
    }
  }
  return h;
}

class CorpusVerify : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusVerify, AgreesWithCPython) {
#ifndef TC_HAVE_PYTHON
  GTEST_SKIP() << "built without the python reference";
#else
  const std::string path = corpus_dir() + "/" + GetParam();
  const std::string source = slurp(path);
  Header h = parse_header(source);
  ASSERT_TRUE(h.problem.empty()) << path << ": " << h.problem;

  CompileOptions co;
  co.filename = path;
  co.function = h.function;
  co.inputs = h.inputs;
  co.dtype = h.dtype;
  auto compiled = compile_python(source, co);
  ASSERT_TRUE(compiled) << compiled.error().format();

  PythonReferenceOptions ro;
  ro.source = source;
  ro.filename = path;
  ro.function = h.function;
  auto reference = make_python_reference(ro);
  ASSERT_TRUE(reference) << reference.error().format();

  VerifyOptions vo;  // atol = rtol = 0, max_cases 100,000, 10,000 samples
  auto report = verify(compiled->program, **reference, vo);
  ASSERT_TRUE(report) << report.error().format();
  EXPECT_TRUE(report->passed) << path << ": " << report->mismatch_count << " of " << report->cases
                              << " cases disagree: " << report_to_json(*report).dump();
  EXPECT_GT(report->cases, 0u);
  bool enumerable = enumerable_count(program_inputs(compiled->program), vo.max_cases).has_value();
  EXPECT_EQ(report->exhaustive, enumerable);
#endif
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 3);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusVerify, ::testing::ValuesIn(corpus_files()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusVerify);

TEST(CorpusHeader, ParsesInputsFunctionAndDtype) {
  Header h = parse_header(
      "# A comment line without a key is ignored\n"
      "# inputs: a=int32:-128:127, flag=bool x=float64:-1:1\n"
      "# function: pick\n"
      "# dtype: float32\n"
      "def pick(a, flag, x):\n"
      "    # inputs: not=a-header\n");
  ASSERT_TRUE(h.problem.empty()) << h.problem;
  ASSERT_EQ(h.inputs.size(), 3u);
  EXPECT_EQ(h.inputs[0].first, "a");
  EXPECT_EQ(h.inputs[0].second, Domain::int32(-128, 127));
  EXPECT_EQ(h.inputs[1].second.type, DomainType::Boolean);
  EXPECT_EQ(h.inputs[2].second, Domain::float64(-1, 1));
  EXPECT_EQ(h.function, "pick");
  EXPECT_EQ(h.dtype, Dtype::Float32);
  EXPECT_FALSE(parse_header("# inputs: a=int8\n").problem.empty());
}

}  // namespace
}  // namespace tc
