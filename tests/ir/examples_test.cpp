// The description's examples, built with the Builder, must equal the bundled
// artifacts under resources/examples (TC_UPDATE_GOLDEN=1 rewrites them).
#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "support/examples.h"
#include "ir/artifact.h"
#include "test_paths_util.h"

namespace tc {
namespace {

struct Example {
  const char* file;
  Program (*make)();
};

class BundledExample : public ::testing::TestWithParam<Example> {};

TEST_P(BundledExample, MatchesBuilder) {
  const Example& ex = GetParam();
  std::string path = testing::source_path(std::string("resources/examples/") + ex.file);
  Program built = ex.make();
  if (testing::regenerate_golden()) ASSERT_TRUE(write_file_atomic(path, save_artifact(built)).ok());
  auto loaded = load_artifact(testing::slurp(path));
  ASSERT_TRUE(loaded.ok()) << path << ": " << loaded.error().message;
  EXPECT_EQ(*loaded, built) << "rerun with TC_UPDATE_GOLDEN=1 after an intended change";
}

INSTANTIATE_TEST_SUITE_P(Examples, BundledExample,
                         ::testing::Values(Example{"gated.json", examples::gated},
                                           Example{"counter.json", examples::counter},
                                           Example{"learned_correction.json", examples::learned_correction}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });

TEST(Examples, LearnedCorrectionKeepsTheRuleFixed) {
  Program p = examples::learned_correction();
  // The included rule's constants stay constants and only `correction` is a parameter.
  EXPECT_EQ(p.nodes_of(Op::Parameter).size(), 1u);
  EXPECT_EQ(p.nodes[static_cast<std::size_t>(p.nodes_of(Op::Parameter)[0])].name, "correction");
  EXPECT_EQ(p.nodes_of(Op::Input).size(), 1u) << "the rule's input is wired to x, not duplicated";
  EXPECT_EQ(p.nodes_of(Op::Gt).size(), 1u);
}

}  // namespace
}  // namespace tc
