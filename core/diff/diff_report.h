#pragma once
/// The two forms of a Diff that every client prints: JSON (format
/// "tensorcode.diff", version 1, described in docs/diff.md) and a readable
/// text. The CLI, the Python package and the IDE share them.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "diff/diff.h"

namespace tc {

/// The diff as JSON; `a` and `b` are the programs it was made from.
nlohmann::ordered_json diff_to_json(const Diff& diff, const Program& a, const Program& b);

struct DiffTextOptions {
  std::string a_label = "a";  ///< how the text names each side (a file name)
  std::string b_label = "b";
  std::size_t limit = 20;     ///< lines per list before "... and N more"
};

/// The diff as lines of text, ending with a verdict line.
std::string diff_to_text(const Diff& diff, const Program& a, const Program& b, const DiffTextOptions& options = {});

}  // namespace tc
