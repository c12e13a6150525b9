#pragma once
/// Helpers shared by the passes: validation around a pass, use counts,
/// liveness and id compaction. Internal to core/passes (no stable API).
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc::passes {

/// Validates the program a pass receives; the error says which pass refused it.
Status validate_input(const Program& program, std::string_view pass);
/// Validates what a pass produced. A failure is a bug in the pass, reported as
/// an "internal error" value instead of aborting, so a user still gets one line.
Status validate_output(const Program& program, std::string_view pass);

/// For every node, how many times it is referenced: as an argument (once per
/// occurrence), as an output and as a state update's next value.
std::vector<int> use_counts(const Program& program);

/// Nodes some output or state update needs (transitively). State nodes that
/// are updated count as needed together with their next value.
std::vector<bool> live_nodes(const Program& program);

/// Like live_nodes, but a select whose condition `decided` resolves (true:
/// yes, false: no) needs only its condition and the chosen branch, because
/// exact and hybrid forward evaluation never computes the other branch.
/// `decided` is asked only for select nodes with exact or hybrid semantics.
std::vector<bool> live_nodes_lazy(const Program& program,
                                  const std::function<std::optional<bool>(const Node& select)>& decided);

/// Builds a program from `program` keeping the nodes with keep[i] (in order)
/// and renumbering ids. Every reference (args, outputs, updates) first goes
/// through `alias` (alias[i] == i for a node that is not replaced); the
/// referenced node must be kept.
Program compact(const Program& program, const std::vector<bool>& keep, const std::vector<NodeId>& alias);
/// The same, in `program`'s own storage: kept nodes move down in place
/// instead of being copied into a new program (no per-node allocation, which
/// matters for the frontend's 100,000-node circuits).
Program compact(Program&& program, const std::vector<bool>& keep, const std::vector<NodeId>& alias);

/// The identity alias map for `program`.
std::vector<NodeId> identity_alias(const Program& program);

/// True when two nodes carry the same per-node policy overrides (from include).
bool same_policy(const Node& a, const Node& b);

}  // namespace tc::passes
