#include <gtest/gtest.h>

#include "support/examples.h"
#include "ir/program.h"

namespace tc {
namespace {

TEST(Validate, ExamplesAreValid) {
  for (const Program& p : {examples::choose(), examples::gated(), examples::counter(), examples::learned_correction()})
    EXPECT_TRUE(validate(p).ok());
}

TEST(Validate, ErrorsNameNodeAndLocation) {
  Program p = examples::choose();
  p.nodes[3].args = {3, 0};
  auto s = validate(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("node 3 (gt) at line 2, column 18"), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().node, 3);
}

TEST(Validate, UpdatesMustTargetState) {
  Program p = examples::counter();
  p.updates.emplace_back(p.updates[0]);
  EXPECT_FALSE(validate(p).ok()) << "a state updated twice";
  p = examples::counter();
  p.updates[0].first = 0;
  EXPECT_FALSE(validate(p).ok()) << "an update of an input";
}

TEST(Validate, ParameterAndInputNamesAreDistinct) {
  Program p = examples::gated();
  p.nodes[1].name = "x";
  EXPECT_FALSE(validate(p).ok());
}

TEST(Validate, OpTableCoversEveryOpOnce) {
  for (int i = 0; i < kOpCount; ++i) {
    Op op = static_cast<Op>(i);
    EXPECT_EQ(op_from_name(op_name(op)), op);
  }
  EXPECT_FALSE(op_from_name("pow").has_value());
}

}  // namespace
}  // namespace tc
