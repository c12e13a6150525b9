// libFuzzer entry point for the circuit diff (core/diff): the input is two
// artifacts separated by a NUL byte (one artifact alone is diffed against
// itself). Whatever the loader accepts, the diff must end, pair one to one,
// account for every node, give the same answer twice, print both forms, and
// find an artifact equal to itself. Build with clang as fuzz/artifact_fuzz.cpp
// says; the seeds are artifacts from the tests (fuzz/seeds.txt).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "diff/diff.h"
#include "diff/diff_report.h"
#include "ir/artifact.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = text.find('\0');
  auto a = tc::load_artifact(text.substr(0, cut));
  auto b = cut == std::string_view::npos ? a : tc::load_artifact(text.substr(cut + 1));
  if (!a.ok() || !b.ok()) return 0;
  auto d = tc::diff_programs(*a, *b);
  TC_ASSERT(d.ok());
  const tc::NodeMatch& m = d->match;
  TC_ASSERT(m.a_to_b.size() == a->nodes.size() && m.b_to_a.size() == b->nodes.size());
  std::size_t paired = 0;
  for (std::size_t i = 0; i < m.a_to_b.size(); ++i) {
    const tc::NodeId y = m.a_to_b[i];
    if (y < 0) continue;
    ++paired;
    TC_ASSERT(static_cast<std::size_t>(y) < b->nodes.size() && m.b_to_a[static_cast<std::size_t>(y)] == static_cast<tc::NodeId>(i));
  }
  TC_ASSERT(d->unchanged + d->changed.size() == paired);
  TC_ASSERT(paired + d->removed.size() == a->nodes.size() && paired + d->added.size() == b->nodes.size());
  TC_ASSERT(tc::match_circuits(*a, *b).a_to_b == m.a_to_b);
  if (cut == std::string_view::npos) TC_ASSERT(d->same());
  TC_ASSERT(!tc::diff_to_json(*d, *a, *b).dump().empty());
  TC_ASSERT(!tc::diff_to_text(*d, *a, *b).empty());
  return 0;
}
