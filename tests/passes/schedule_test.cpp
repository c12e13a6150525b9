// Dependency layers: unit cases and golden schedules (Builder programs and
// the whole corpus). TC_UPDATE_GOLDEN=1 rewrites the golden files.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ir/artifact.h"
#include "ir/builder.h"
#include "passes/schedule.h"
#include "passes_util.h"
#include "support/golden.h"

namespace tc {
namespace {

bool regenerate() { return tc::testing::update_golden(); }

std::string golden_path(const std::string& name) { return std::string(TC_TEST_DATA) + "/passes/" + name + ".golden"; }

std::string layers_text(const Schedule& s) {
  nlohmann::json j;
  j["layers"] = s.layers;
  return j.dump();
}

// Compares `actual` with the golden file (or rewrites it under TC_UPDATE_GOLDEN=1).
void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  if (regenerate()) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden " << path << " (run with TC_UPDATE_GOLDEN=1)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), actual) << "golden " << path << " differs (TC_UPDATE_GOLDEN=1 rewrites it)";
}

Program build(Builder& b, Arg result) {
  auto p = b.build(result);
  TC_ASSERT(p.ok());
  return std::move(*p);
}

TEST(Schedule, LayersFollowTheDeepestArgument) {
  Builder b;
  Value x = b.input("x");                // 0
  Value y = b.input("y");                // 1
  Value s = x + y;                       // 2
  Value c = b.constant(2);               // 3
  Value m = s * c;                       // 4: depth 2
  Value r = m + x;                       // 5: depth 3
  Value unused = b.call("host", {});     // 6: a call without arguments is a leaf
  (void)unused;
  Program p = build(b, r);
  auto sch = schedule(p);
  ASSERT_TRUE(sch.ok());
  EXPECT_EQ(sch->layer_of, (std::vector<int>{0, 0, 1, 0, 2, 3, 0}));
  EXPECT_EQ(sch->layers, (std::vector<std::vector<NodeId>>{{0, 1, 3, 6}, {2}, {4}, {5}}));
  (void)s;
}

TEST(Schedule, EveryNodeInExactlyOneLayerAfterItsArguments) {
  std::mt19937_64 rng(8);
  for (int k = 0; k < 100; ++k) {
    Program p = testing::random_program(rng);
    auto sch = schedule(p);
    ASSERT_TRUE(sch.ok());
    std::vector<int> seen(p.nodes.size(), 0);
    for (std::size_t l = 0; l < sch->layers.size(); ++l) {
      EXPECT_FALSE(sch->layers[l].empty());
      for (NodeId id : sch->layers[l]) {
        ++seen[static_cast<std::size_t>(id)];
        for (NodeId a : p.nodes[static_cast<std::size_t>(id)].args)
          EXPECT_LT(sch->layer_of[static_cast<std::size_t>(a)], static_cast<int>(l));
      }
    }
    for (int s : seen) EXPECT_EQ(s, 1);
  }
}

TEST(Schedule, RejectsInvalidPrograms) {
  Program p;
  auto sch = schedule(p);
  ASSERT_FALSE(sch.ok());
  EXPECT_NE(sch.error().message.find("schedule: invalid program"), std::string::npos);
}

TEST(ScheduleGolden, BuilderPrograms) {
  {
    Builder b;
    Value a = b.input("a", Domain::int32(-128, 127));
    Program p = build(b, b.select(a > 4, 10, 12));
    expect_golden("schedule_contract_example", layers_text(*schedule(p)));
  }
  {
    Builder b;
    Value e = b.input("event", Domain::int32(0, 1));
    Value count = b.state("count", 0, Domain::int32(0, 100));
    b.update(count, count + e);
    Program p = build(b, count);
    expect_golden("schedule_counter", layers_text(*schedule(p)));
  }
  {
    Builder b;
    Value x = b.input("x"), y = b.input("y");
    Value acc = b.scan([](Builder&, Value carry, Value item) { return carry * 0.5 + item; }, 0.0, {x, y, x, y});
    // One statement per node (the golden names node ids; the order of an
    // operator's operands is up to the compiler, and gcc and clang differ).
    Value smooth = b.sigmoid(x);
    Value rectified = b.relu(acc);
    Program p = build(b, rectified + smooth);
    expect_golden("schedule_scan", layers_text(*schedule(p)));
  }
}

// FNV-1a of the compiled artifact: tells "the frontend now compiles this file
// differently" (the golden is stale, not wrong) from "the schedule of the
// same circuit changed" (a regression).
std::string fingerprint(const Program& p) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : save_artifact(p)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

TEST(ScheduleGolden, Corpus) {
  auto corpus = testing::load_corpus();
  ASSERT_FALSE(corpus.empty()) << "no programs under tests/data/corpus: a broken data path";
  // Golden lines: NAME FINGERPRINT {"layers": ...}
  std::map<std::string, std::pair<std::string, std::string>> golden;
  {
    std::ifstream in(golden_path("schedule_corpus"), std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string name, fp, layers;
      ls >> name >> fp >> layers;
      golden[name] = {fp, layers};
    }
  }
  std::string text;
  int compared = 0;
  for (const auto& entry : corpus) {
    auto c = compile_python(entry.source, entry.options);
    ASSERT_TRUE(c.ok()) << entry.name << ": " << c.error().format();
    auto sch = schedule(c->program);
    ASSERT_TRUE(sch.ok()) << entry.name;
    const std::string fp = fingerprint(c->program), layers = layers_text(*sch);
    text += entry.name + " " + fp + " " + layers + "\n";
    if (regenerate()) continue;
    // Every corpus program must have its golden line, for the circuit the
    // frontend compiles today: a changed fingerprint means the frontend's
    // output changed and the golden must be refreshed (and the diff reviewed).
    auto it = golden.find(entry.name);
    if (it == golden.end()) {
      ADD_FAILURE() << entry.name << ": no line in schedule_corpus.golden (TC_UPDATE_GOLDEN=1 adds it)";
      continue;
    }
    if (it->second.first != fp) {
      ADD_FAILURE() << entry.name << ": compiles to a different circuit than schedule_corpus.golden records "
                    << "(TC_UPDATE_GOLDEN=1 refreshes; review the schedule diff)";
      continue;
    }
    ++compared;
    EXPECT_EQ(it->second.second, layers) << entry.name << ": schedule changed for the same circuit";
  }
  if (regenerate()) {
    std::ofstream(golden_path("schedule_corpus"), std::ios::binary) << text;
    return;
  }
  EXPECT_EQ(compared, static_cast<int>(corpus.size()));
  EXPECT_EQ(golden.size(), corpus.size()) << "schedule_corpus.golden names programs the corpus no longer has";
}

}  // namespace
}  // namespace tc
