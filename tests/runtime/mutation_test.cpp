// Deterministic mutation tests: damaged snapshot texts and event lines never
// crash or hang, and whatever restores cleanly round-trips and runs.
#include <gtest/gtest.h>

#include <random>

#include "runtime/runtime.h"
#include "runtime/runtime_util.h"

namespace tc {
namespace {

using testing::must;

std::string mutate(std::string text, std::mt19937_64& rng) {
  static const std::string alphabet = "{}[]\":,0123456789.-+eE truefalsnul\\\n\x01\xff";
  const int edits = std::uniform_int_distribution<int>(1, 4)(rng);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(rng);
    const char c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
      case 0: text[at] = c; break;
      case 1: text.insert(text.begin() + long(at), c); break;
      case 2: text.erase(at, 1); break;
      default: text.resize(at); break;
    }
  }
  return text;
}

TEST(Mutation, DamagedSnapshotsAreRefusedOrConsistent) {
  Runtime base = must(Runtime::create(testing::two_state_program(50), 40));
  for (int i = 0; i < 5; ++i) must(base.dispatch({{"event", i}}));
  const std::string text = base.snapshot_text();
  std::mt19937_64 rng(7);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string damaged = mutate(text, rng);
    auto r = Runtime::restore_text(damaged);
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("snapshot: ", 0), 0u) << r.error().message;
      continue;
    }
    ++accepted;
    // Whatever was accepted is a coherent runtime: it snapshots, restores to
    // the same text, and its steps stay within its budget.
    EXPECT_LE(r->steps(), r->max_steps());
    const std::string again = r->snapshot_text();
    EXPECT_EQ(must(Runtime::restore_text(again)).snapshot_text(), again);
  }
  EXPECT_LT(accepted, 3000);
}

TEST(Mutation, DamagedEventLinesNeverCommitGarbage) {
  Runtime runtime = must(Runtime::create(testing::two_state_program(100000), 100000));
  const std::string line = R"({"event": 3})";
  std::mt19937_64 rng(11);
  for (int i = 0; i < 3000; ++i) {
    const std::string damaged = mutate(line, rng);
    auto event = runtime.parse_event(damaged);
    if (!event.ok()) continue;
    const std::vector<double> before = runtime.state();
    auto r = runtime.dispatch(*event);
    if (r.ok()) {
      // A committed event carried exactly the input, as an integer 0..9.
      const double v = event->at("event");
      EXPECT_EQ(runtime.state()[0], before[0] + v) << damaged;
      EXPECT_TRUE(v >= 0 && v <= 9 && v == std::floor(v)) << damaged;
    } else {
      EXPECT_EQ(runtime.state(), before) << damaged;
    }
  }
}

}  // namespace
}  // namespace tc
