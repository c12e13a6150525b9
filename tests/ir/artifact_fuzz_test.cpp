// Deterministic mutation fuzzing of the artifact loader: thousands of
// corrupted variants of valid artifacts must each either load (and then
// round-trip) or fail with an error — never crash, hang or assert. The ASan
// build runs this too. fuzz/artifact_fuzz.cpp is the libFuzzer twin.
#include <gtest/gtest.h>

#include <random>

#include "support/examples.h"
#include "ir/artifact.h"
#include "test_paths_util.h"

namespace tc {
namespace {

std::string mutate(std::string s, std::mt19937_64& rng) {
  static const char* kTokens[] = {"[", "]", "{", "}", ",", ":", "\"", "null", "true", "-", "1e308", "1e999",
                                  "-0", "0.5", "\"op\"", "\"args\"", "[0]", "{}", "2147483648", "\"nodes\""};
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    std::size_t pos = rng() % s.size();
    switch (rng() % 5) {
      case 0: s[pos] = static_cast<char>(rng() % 256); break;
      case 1: s.erase(pos, 1 + rng() % 8); break;
      case 2: s.insert(pos, kTokens[rng() % (sizeof kTokens / sizeof *kTokens)]); break;
      case 3: s.resize(pos); break;
      case 4: {  // swap a digit for another
        for (std::size_t i = pos; i < s.size(); ++i)
          if (s[i] >= '0' && s[i] <= '9') {
            s[i] = static_cast<char>('0' + rng() % 10);
            break;
          }
        break;
      }
    }
  }
  return s;
}

TEST(ArtifactFuzz, MutatedArtifactsLoadOrFailCleanly) {
  std::vector<std::string> seeds = {save_artifact(examples::choose()), save_artifact(examples::gated()),
                                    save_artifact(examples::counter()),
                                    save_artifact(examples::learned_correction()),
                                    testing::slurp(testing::data_path("ir/roundtrip/all_ops.json"))};
  std::mt19937_64 rng(20261129);
  int loaded = 0, rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    std::string text = mutate(seeds[static_cast<std::size_t>(i) % seeds.size()], rng);
    auto r = load_artifact(text);
    if (r.ok()) {
      ++loaded;
      auto again = load_artifact(save_artifact(*r));
      ASSERT_TRUE(again.ok()) << again.error().message;
      EXPECT_EQ(*again, *r);
    } else {
      ++rejected;
      EXPECT_FALSE(r.error().message.empty());
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded, 0) << "some mutations (e.g. digit swaps) stay valid";
}

}  // namespace
}  // namespace tc
