// Every rejection kind: tests/data/frontend/reject/NAME.py states where the
// error must point and part of its message (`# expect: LINE:COL text`).
#include <gtest/gtest.h>

#include "frontend_util.h"

namespace tc {
namespace {

std::string reject_dir() { return std::string(TC_TEST_DATA) + "/frontend/reject"; }

class Reject : public ::testing::TestWithParam<std::string> {};

TEST_P(Reject, FailsWithLocatedMessage) {
  test::CaseFile c = test::load_case(reject_dir() + "/" + GetParam());
  ASSERT_TRUE(c.problem.empty()) << c.path << ": " << c.problem;
  ASSERT_GT(c.expect_line, 0) << c.path << " has no '# expect: LINE:COL text' header";
  auto r = compile_python(c.source, c.options);
  ASSERT_FALSE(r.ok()) << c.path << " compiled but must be rejected";
  const Diagnostic& d = r.error();
  EXPECT_EQ(d.severity, Severity::Error);
  EXPECT_EQ(d.file, c.path);
  ASSERT_TRUE(d.loc.has_value()) << d.format();
  EXPECT_EQ(d.loc->line, c.expect_line) << d.format();
  EXPECT_EQ(d.loc->column, c.expect_column) << d.format();
  EXPECT_NE(d.message.find(c.expect_message), std::string::npos) << d.format();
  EXPECT_EQ(d.format().rfind(c.path + ":" + std::to_string(c.expect_line) + ":" + std::to_string(c.expect_column) +
                                 ": error: ",
                             0),
            0u)
      << d.format();
  // Messages are lowercase sentences without a trailing period.
  EXPECT_FALSE(d.message.empty());
  EXPECT_NE(d.message.back(), '.');
}

std::string name_of(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(0, info.param.size() - 3);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Files, Reject, ::testing::ValuesIn(test::python_files(reject_dir())), name_of);

TEST(Reject, DirectoryHasOneFilePerKind) { EXPECT_GE(test::python_files(reject_dir()).size(), 60u); }

}  // namespace
}  // namespace tc
