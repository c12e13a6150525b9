// Diagnostics render the same way for every client: file, line, column,
// severity, message; a missing location or file is left out, not invented.
#include <gtest/gtest.h>

#include "base/diagnostic.h"
#include "base/result.h"

namespace tc {
namespace {

TEST(Diagnostic, FormatNamesFileLineAndColumn) {
  Diagnostic d = make_error("division by zero", SourceLoc{3, 12}, 7);
  d.file = "m.py";
  EXPECT_EQ(d.format(), "m.py:3:12: error: division by zero");
  EXPECT_EQ(d.node, 7);
}

TEST(Diagnostic, FormatWithoutLocationOrFile) {
  EXPECT_EQ(make_error("no function definition found").format(), "error: no function definition found");
  Diagnostic d = make_warning("unused", std::nullopt);
  d.file = "m.py";
  EXPECT_EQ(d.format(), "m.py: warning: unused");
  Diagnostic located = make_warning("unused", SourceLoc{1, 1});
  EXPECT_EQ(located.format(), "<input>:1:1: warning: unused");
}

TEST(Diagnostic, ResultCarriesValueOrError) {
  Result<int> good = 4;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 4);
  Result<int> bad = make_error("bad", SourceLoc{2, 5});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().loc, (SourceLoc{2, 5}));
  Status ok = ok_status();
  EXPECT_TRUE(ok.ok());
}

TEST(Diagnostic, CodeAndRelatedNodeAreKeptApartFromTheWords) {
  Diagnostic d = with_code(make_error("stopped", std::nullopt, 3), DiagCode::HybridNeedsUnchosen, 7);
  EXPECT_EQ(d.code, DiagCode::HybridNeedsUnchosen);
  EXPECT_EQ(d.node, NodeId{3});
  EXPECT_EQ(d.related, NodeId{7});
  EXPECT_EQ(d.format(), "error: stopped");  // the rendering does not change
  EXPECT_EQ(make_error("x").code, DiagCode::Generic);
  EXPECT_STREQ(to_string(DiagCode::HybridNeedsUnchosen), "hybrid-needs-unchosen");
  EXPECT_STREQ(to_string(DiagCode::IterationBudget), "iteration-budget");
}

}  // namespace
}  // namespace tc
