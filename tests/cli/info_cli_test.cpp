// `tensorcode info --ir` and `--dot` through the real binary: the listing and
// the Graphviz text the IDE shows (core/ir/printer.h).
#include <gtest/gtest.h>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

const std::string kCounter = std::string(TC_SOURCE_DIR) + "/resources/examples/counter.json";

TEST(CliInfo, IrListsEveryNodeWithItsLayer) {
  auto r = run_cli({"info", kCounter, "--ir"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "; semantics exact, dtype float64, 3 nodes\n"
            "L0    %0     = input event : int32:0:1\n"
            "L0    %1     = state count = 0 : int32:0:100\n"
            "L1    %2     = add %1, %0\n"
            "output result = %1\n"
            "update %1 <- %2\n");
}

TEST(CliInfo, DotIsGraphvizRankedByLayer) {
  auto r = run_cli({"info", kCounter, "--dot"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("digraph tensorcode {", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("n1 -> n2;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{ rank=same; n0; n1; }"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{ rank=same; n2; }"), std::string::npos) << r.out;
}

TEST(CliInfo, IrOfPythonSourceHasSourcePositions) {
  const std::string dir = testing::temp_dir();
  const std::string file = testing::write_temp(dir, "f.py", "def f(a):\n    return a * 2 + 1\n");
  auto r = run_cli({"info", file, "--input", "a=int32:0:9", "--ir"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("; @2:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output result = %"), std::string::npos) << r.out;
}

TEST(CliInfo, IrAndDotTogetherIsAUsageError) {
  EXPECT_EQ(run_cli({"info", kCounter, "--ir", "--dot"}).status, 2);
}

}  // namespace
}  // namespace tc
