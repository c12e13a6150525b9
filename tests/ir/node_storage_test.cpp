// The compact storage inside an IR node: NodeArgs (ids inline up to four,
// then on the heap) and IterationPath (one shared, immutable loop path). Both
// must behave exactly like the std::vector they replaced; the size checks
// keep the node small, which is what the 100k-node compile time rests on.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "ir/program.h"

namespace tc {
namespace {

std::vector<NodeId> ids(const NodeArgs& a) { return {a.begin(), a.end()}; }

TEST(NodeArgs, HoldsAnyCountLikeAVector) {
  for (int count : {0, 1, 3, 4, 5, 8, 9, 100, 1000}) {
    NodeArgs a;
    std::vector<NodeId> want;
    for (int i = 0; i < count; ++i) {
      a.push_back(i * 7);
      want.push_back(i * 7);
    }
    ASSERT_EQ(a.size(), want.size()) << count;
    EXPECT_EQ(ids(a), want) << count;
    EXPECT_EQ(a.empty(), count == 0);
    if (count > 0) {
      EXPECT_EQ(a.front(), 0);
      EXPECT_EQ(a.back(), (count - 1) * 7);
    }
    // copies and moves keep every id, and leave the source usable
    NodeArgs copy = a;
    EXPECT_EQ(copy, a);
    NodeArgs moved = std::move(copy);
    EXPECT_EQ(ids(moved), want);
    EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty
    copy.push_back(42);
    EXPECT_EQ(ids(copy), std::vector<NodeId>{42});
    NodeArgs assigned{9, 9};
    assigned = moved;
    EXPECT_EQ(ids(assigned), want);
    assigned = std::move(moved);
    EXPECT_EQ(ids(assigned), want);
    assigned = assigned;  // self-assignment keeps the ids
    EXPECT_EQ(ids(assigned), want);
  }
}

TEST(NodeArgs, AssignsFromListsAndVectors) {
  NodeArgs a{1, 2, 3, 4, 5, 6};
  EXPECT_EQ(ids(a), (std::vector<NodeId>{1, 2, 3, 4, 5, 6}));
  a = {7};
  EXPECT_EQ(ids(a), std::vector<NodeId>{7});
  std::vector<NodeId> big(50);
  std::iota(big.begin(), big.end(), 0);
  a = big;
  EXPECT_EQ(a, big);
  EXPECT_EQ(a.to_vector(), big);
  a.clear();
  EXPECT_TRUE(a.empty());
  a.resize(3, -1);
  EXPECT_EQ(ids(a), (std::vector<NodeId>{-1, -1, -1}));
  for (NodeId& id : a) id = 5;
  EXPECT_EQ(ids(a), (std::vector<NodeId>{5, 5, 5}));
  EXPECT_NE(a, (NodeArgs{5, 5}));
  EXPECT_NE(a, (NodeArgs{5, 5, 6}));
}

TEST(NodeArgs, StaysAsSmallAsTheVectorItReplaced) {
  EXPECT_LE(sizeof(NodeArgs), sizeof(std::vector<NodeId>));
}

TEST(IterationPath, ComparesByContentAndSharesCopies) {
  IterationPath none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_EQ(none, IterationPath(std::vector<LoopStep>{}));
  IterationPath a{{"i", 1}, {"j", 2}};
  IterationPath b(std::vector<LoopStep>{{"i", 1}, {"j", 2}});
  EXPECT_EQ(a, b);  // separate allocations, same steps
  EXPECT_EQ(a, (std::vector<LoopStep>{{"i", 1}, {"j", 2}}));
  EXPECT_NE(a, (IterationPath{{"i", 1}, {"j", 3}}));
  EXPECT_NE(a, none);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.front().variable, "i");
  EXPECT_EQ(a[1].value, 2);
  IterationPath c = a;
  EXPECT_EQ(&c.front(), &a.front()) << "a copy shares the steps";
}

}  // namespace
}  // namespace tc
