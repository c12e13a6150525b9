// The IR listing and the Graphviz text (ir/printer.h) on a small program,
// character for character: the CLI and the IDE both print these.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/printer.h"

namespace tc {
namespace {

Program sample() {
  Builder b;
  b.set_location(SourceLoc{2, 5});
  Value x = b.input("x", Domain::int32(0, 9));
  Value w = b.parameter("w", 0.1);
  b.set_location(SourceLoc{3, 12});
  Value y = b.select(x > 4, w * x, 2.5);
  auto p = b.build(y);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return *p;
}

TEST(IrPrinter, ListingHasLayerFirstAndSourcePositions) {
  const Program p = sample();
  std::vector<int> layers(p.nodes.size(), 0);
  for (const auto& n : p.nodes)
    for (NodeId a : n.args) layers[static_cast<std::size_t>(n.id)] = std::max(layers[static_cast<std::size_t>(n.id)], layers[static_cast<std::size_t>(a)] + 1);
  const std::string text = print_ir(p, layers);
  // Header, one line per node, the output.
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_EQ(lines.size(), 1 + p.nodes.size() + 1) << text;
  EXPECT_EQ(lines[0], "; semantics exact, dtype float64, " + std::to_string(p.nodes.size()) + " nodes");
  EXPECT_EQ(lines[kIrFirstNodeLine], "L0    %0     = input x : int32:0:9            ; @2:5");
  EXPECT_EQ(lines[kIrFirstNodeLine + 1], "L0    %1     = parameter w = 0.1              ; @2:5");
  const NodeId out = p.outputs.front().second;
  EXPECT_EQ(lines.back(), "output result = %" + std::to_string(out));
  EXPECT_EQ(lines[static_cast<std::size_t>(kIrFirstNodeLine + out)].rfind("L2    %" + std::to_string(out) + "     = select %", 0), 0u)
      << lines[static_cast<std::size_t>(kIrFirstNodeLine + out)];
}

TEST(IrPrinter, NodeLineIsTheListingsAssignment) {
  const Program p = sample();
  EXPECT_EQ(node_line(p, 0), "%0 = input x : int32:0:9");
  EXPECT_EQ(node_line(p, 1), "%1 = parameter w = 0.1");
  // Every node's line is its listing line without layer, padding and location.
  const std::string text = print_ir(p, {});
  for (const auto& n : p.nodes) {
    const std::string line = node_line(p, n.id);
    const std::string op = line.substr(line.find(" = ") + 3);
    EXPECT_NE(text.find("%" + std::to_string(n.id) + " "), std::string::npos);
    EXPECT_NE(text.find("= " + op), std::string::npos) << line;
  }
}

TEST(IrPrinter, NumbersRoundTrip) {
  EXPECT_EQ(round_trip_number(0.1), "0.1");
  EXPECT_EQ(round_trip_number(1638.0000000000007), "1638.0000000000007");
  EXPECT_EQ(round_trip_number(-2.0), "-2");
  EXPECT_EQ(std::stod(round_trip_number(1.0 / 3.0)), 1.0 / 3.0);
}

TEST(IrPrinter, DotRanksLayersAndKeepsSubsetEdges) {
  const Program p = sample();
  std::vector<int> layers(p.nodes.size(), 0);
  layers[2] = 1;
  const std::string dot = to_dot(p, layers);
  EXPECT_EQ(dot.rfind("digraph tensorcode {", 0), 0u);
  EXPECT_NE(dot.find("n0 [label=\"#0 input x\"]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("{ rank=same; n2; }"), std::string::npos) << dot;
  EXPECT_NE(dot.find("-> \"out_result\" [style=dashed]"), std::string::npos);
  // A subset keeps only the edges among its nodes; ids outside the program are ignored.
  const std::vector<NodeId> subset = {0, 2, 999};
  const std::string part = to_dot(p, layers, &subset);
  EXPECT_EQ(part.find("n1 "), std::string::npos) << part;
  EXPECT_EQ(part.find("n999"), std::string::npos);
}

}  // namespace
}  // namespace tc
