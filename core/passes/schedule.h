#pragma once
/// Dependency layers of a program: the order in which its nodes can be
/// computed in parallel waves (the IDE's graph layout and the Vulkan
/// splitter use it).
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

struct Schedule {
  /// layers[k] lists, in ascending id order, the nodes whose layer is k.
  std::vector<std::vector<NodeId>> layers;
  /// layer_of[id]: the layer of every node.
  std::vector<int> layer_of;
};

/// A node without arguments (every leaf, and a call without arguments) is in
/// layer 0; any other node is one layer above its deepest argument. Every
/// node is scheduled, including nodes no output needs. The program is
/// validated first.
Result<Schedule> schedule(const Program& program);

}  // namespace tc
