#pragma once
/// Text forms of a program shared by the CLI (`tensorcode info --ir`,
/// `tensorcode info --dot`) and the IDE's IR text and Graphviz views, so both
/// print the same thing.
///
/// The IR listing: a header line (`; semantics S, dtype D, N nodes`), then one
/// line per node in id order, `L<layer> %<id> = <op> <operands>  ; @line:col`,
/// then `output NAME = %id` and `update %state <- %next` lines.
#include <string>
#include <vector>

#include "ir/program.h"

namespace tc {

/// Shortest text that reads back to the same double ("nan", "inf", "-inf" otherwise).
std::string round_trip_number(double v);

/// One node's op, attributes and operands, e.g. "div %3, %5" or "constant 2.5".
std::string node_text(const Program& program, NodeId id);
/// The node as an assignment, "%7 = div %3, %5": its line of the listing
/// without the layer, the padding and the source location (what the IDE's
/// Copy IR Line copies).
std::string node_line(const Program& program, NodeId id);

/// The listing described above. `layers` gives each node's schedule layer
/// (passes/schedule.h); empty prints layer 0 everywhere.
std::string print_ir(const Program& program, const std::vector<int>& layers);
/// 0-based line of node 0 in print_ir's text.
inline constexpr int kIrFirstNodeLine = 1;

/// Graphviz dot of the program, or of the nodes in `subset` (edges among
/// them only), each schedule layer on one rank (`rank=same`), outputs as
/// dashed edges to their names.
std::string to_dot(const Program& program, const std::vector<int>& layers, const std::vector<NodeId>* subset = nullptr);

}  // namespace tc
