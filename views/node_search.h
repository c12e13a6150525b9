#pragma once
// Find Node (Ctrl+G): which nodes a query names, in a stable order, so the
// tool bar can step through them. Plain C++ over the program (no widgets).
#include <string>
#include <vector>

#include "ir/program.h"

namespace tc {
namespace views {

/// The nodes `query` matches, best first, no node twice:
///   "12", "#12", "%12"       the node with that id
///   "line 5", "L5", ":5"     the nodes whose source starts on line 5 (id order)
///   an op name ("select")     every node of that op (id order)
///   any other text           nodes and outputs of that exact name, then names containing it (any case)
/// An empty query matches nothing.
std::vector<NodeId> find_nodes(const Program& program, const std::string& query);

}  // namespace views
}  // namespace tc
