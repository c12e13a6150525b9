// `tensorcode emit --target c|onnx` end to end: the C source and its header
// beside it (or one self-contained source on standard output), the ONNX
// model's bytes, usage errors (exit 2) and refusals (exit 3, one line, no
// file left behind).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "base/atomic_file.h"
#include "support/cli_util.h"

namespace {

using tc::testing::CliResult;
using tc::testing::run_cli;

const std::string kData = std::string(TC_TEST_DATA) + "/emit/";
const std::string kCounter = std::string(TC_SOURCE_DIR) + "/resources/examples/counter.json";

std::filesystem::path scratch(const std::string& what) {
  const auto dir = std::filesystem::temp_directory_path() / ("tc_export_cli_" + what + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ExportCli, CWritesSourceAndHeaderBesideIt) {
  const auto dir = scratch("c");
  CliResult r = run_cli({"emit", kData + "random_int.json", "--target", "c", "-o", (dir / "rule-v2.c").string()});
  auto src = tc::read_file((dir / "rule-v2.c").string());
  auto hdr = tc::read_file((dir / "rule-v2.h").string());
  CliResult named = run_cli({"emit", kData + "random_int.json", "--target", "c", "--name", "scorer"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(src.ok() && hdr.ok());
  EXPECT_NE(src->find("#include \"rule-v2.h\""), std::string::npos);
  // The prefix comes from the file's stem, made an identifier.
  EXPECT_NE(hdr->find("int rule_v2(double in_x0, double in_x1, double in_x2,"), std::string::npos) << *hdr;
  EXPECT_NE(hdr->find("long rule_v2_cases(long count"), std::string::npos);
  ASSERT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(named.out.find("#include \""), std::string::npos) << "standard output gets one self-contained source";
  EXPECT_NE(named.out.find("long scorer_cases(long count"), std::string::npos);
}

TEST(ExportCli, OnnxWritesTheModel) {
  const auto dir = scratch("onnx");
  const std::string out = (dir / "m.onnx").string();
  CliResult r = run_cli({"emit", kData + "random_sigmoid.json", "--target", "onnx", "-o", out});
  auto bytes = tc::read_file(out);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(bytes.ok());
  ASSERT_GE(bytes->size(), 100u);
  EXPECT_EQ(bytes->substr(0, 2), std::string("\x08\x08", 2));  // ModelProto.ir_version = 8
  EXPECT_NE(bytes->find("error_node"), std::string::npos);
}

TEST(ExportCli, UsageErrorsAndRefusals) {
  const auto dir = scratch("bad");
  CliResult h = run_cli({"emit", kData + "random_int.json", "--target", "c", "-o", (dir / "x.h").string()});
  EXPECT_EQ(h.status, 2) << h.err;
  EXPECT_NE(h.err.find("give the C source's name (FILE.c)"), std::string::npos) << h.err;
  CliResult n = run_cli({"emit", kData + "random_int.json", "--target", "wgsl", "--name", "x"});
  EXPECT_EQ(n.status, 2) << n.err;
  CliResult bad = run_cli({"emit", kData + "random_int.json", "--target", "c", "--name", "2fast"});
  EXPECT_EQ(bad.status, 3) << bad.err;
  EXPECT_NE(bad.err.find("cannot name the C functions"), std::string::npos) << bad.err;
  for (const char* target : {"c", "onnx"}) {
    const std::string out = (dir / (std::string("counter.") + target)).string();
    CliResult s = run_cli({"emit", kCounter, "--target", target, "-o", out});
    EXPECT_EQ(s.status, 3) << s.err;
    EXPECT_NE(s.err.find(std::string("error: the ") + target + " backend runs stateless programs only"), std::string::npos)
        << s.err;
    EXPECT_EQ(std::count(s.err.begin(), s.err.end(), '\n'), 1) << s.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << "a refusal leaves no file";
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "counter.h"));
  std::filesystem::remove_all(dir);
}

// issue 37: `emit floor.py -o floor.c` named the functions floor (math.h's),
// `--name exp` was accepted, and `-o modèle.c` / `-o what?.c` included the
// header by an escaped name no compiler finds.
TEST(ExportCli, TakenNamesAndHeaderNames) {
  const auto dir = scratch("names");
  const std::string program = kData + "random_int.json";
  CliResult fl = run_cli({"emit", program, "--target", "c", "-o", (dir / "floor.c").string()});
  auto fl_hdr = tc::read_file((dir / "floor.h").string());
  CliResult ex = run_cli({"emit", program, "--target", "c", "--name", "exp", "-o", (dir / "e.c").string()});
  CliResult utf = run_cli({"emit", program, "--target", "c", "-o", (dir / "mod\xc3\xa8le.c").string()});
  auto utf_src = tc::read_file((dir / "mod\xc3\xa8le.c").string());
  CliResult q = run_cli({"emit", program, "--target", "c", "-o", (dir / "what?.c").string()});
  auto q_src = tc::read_file((dir / "what?.c").string());
  CliResult quote = run_cli({"emit", program, "--target", "c", "-o", (dir / "a\"b.c").string()});
  const bool quote_left = std::filesystem::exists(dir / "a\"b.c") || std::filesystem::exists(dir / "a\"b.h");
  const bool exp_left = std::filesystem::exists(dir / "e.c") || std::filesystem::exists(dir / "e.h");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(fl.status, 0) << fl.err;
  ASSERT_TRUE(fl_hdr.ok());
  EXPECT_NE(fl_hdr->find("int tc_floor(double in_x0,"), std::string::npos) << *fl_hdr;
  EXPECT_EQ(ex.status, 3) << ex.err;
  EXPECT_NE(ex.err.find("'exp' cannot name the C functions: <math.h> or the export already uses that name"),
            std::string::npos) << ex.err;
  EXPECT_FALSE(exp_left) << "a refusal leaves no file";
  ASSERT_EQ(utf.status, 0) << utf.err;
  ASSERT_TRUE(utf_src.ok());
  EXPECT_NE(utf_src->find("#include \"mod\xc3\xa8le.h\"\n"), std::string::npos);
  ASSERT_EQ(q.status, 0) << q.err;
  ASSERT_TRUE(q_src.ok());
  EXPECT_NE(q_src->find("#include \"what?.h\"\n"), std::string::npos);
  EXPECT_EQ(quote.status, 3) << quote.err;
  EXPECT_NE(quote.err.find("cannot be written in an #include"), std::string::npos) << quote.err;
  EXPECT_FALSE(quote_left) << "a refusal leaves no file";
}

}  // namespace
