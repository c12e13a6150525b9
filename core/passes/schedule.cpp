#include "passes/schedule.h"

#include <algorithm>

#include "passes/pass_util.h"

namespace tc {

Result<Schedule> schedule(const Program& program) {
  if (Status s = passes::validate_input(program, "schedule"); !s) return s.error();
  Schedule out;
  out.layer_of.assign(program.nodes.size(), 0);
  int deepest = -1;
  for (const Node& n : program.nodes) {
    int layer = 0;
    for (NodeId a : n.args) layer = std::max(layer, out.layer_of[static_cast<std::size_t>(a)] + 1);
    out.layer_of[static_cast<std::size_t>(n.id)] = layer;
    deepest = std::max(deepest, layer);
  }
  out.layers.resize(static_cast<std::size_t>(deepest + 1));
  for (const Node& n : program.nodes) out.layers[static_cast<std::size_t>(out.layer_of[static_cast<std::size_t>(n.id)])].push_back(n.id);
  return out;
}

}  // namespace tc
