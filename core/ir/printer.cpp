#include "ir/printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <iomanip>
#include <sstream>

#include "base/number_text.h"

namespace tc {

std::string round_trip_number(double v) { return shortest_number(v); }

std::string node_text(const Program& program, NodeId id) {
  const Node& n = program.nodes[static_cast<std::size_t>(id)];
  std::ostringstream os;
  os << op_name(n.op);
  switch (n.op) {
    case Op::Input:
      os << ' ' << n.name;
      if (n.domain) os << " : " << n.domain->to_string();
      break;
    case Op::Parameter:
      os << ' ' << n.name << " = " << round_trip_number(n.value);
      break;
    case Op::Constant:
      os << ' ' << round_trip_number(n.value);
      break;
    case Op::State:
      os << ' ' << n.name << " = " << round_trip_number(n.value);
      if (n.domain) os << " : " << n.domain->to_string();
      break;
    case Op::Call:
      os << ' ' << n.name;
      break;
    case Op::Raise:  // the exception, quoted: its message may hold spaces
      os << ' ' << std::quoted(n.name);
      break;
    case Op::Affine:
    case Op::SparseAffine: {
      const LinearTerms& lin = n.linear();
      os << " [";
      for (std::size_t i = 0; i < lin.coefficients.size(); ++i) os << (i ? ", " : "") << round_trip_number(lin.coefficients[i]);
      os << "]";
      if (lin.bias) os << " + " << round_trip_number(*lin.bias);
      if (n.op == Op::SparseAffine) {
        os << " at [";
        for (std::size_t i = 0; i < lin.indices.size(); ++i) os << (i ? ", " : "") << lin.indices[i];
        os << "]";
      }
      break;
    }
    default:
      break;  // every other op is its name and its arguments
  }
  for (std::size_t i = 0; i < n.args.size(); ++i) os << (i ? ", %" : " %") << n.args[i];
  return os.str();
}

std::string node_line(const Program& program, NodeId id) {
  return "%" + std::to_string(id) + " = " + node_text(program, id);
}

std::string print_ir(const Program& program, const std::vector<int>& layers) {
  std::ostringstream os;
  os << "; semantics " << to_string(program.semantics) << ", dtype " << to_string(program.dtype) << ", "
     << program.nodes.size() << " nodes\n";
  for (const auto& n : program.nodes) {
    // The layer leads the line, so it is visible without scrolling past long operands.
    const auto id = static_cast<std::size_t>(n.id);
    std::string line = "L" + std::to_string(id < layers.size() ? layers[id] : 0);
    line.resize(std::max<std::size_t>(line.size() + 1, 6), ' ');
    std::string lhs = "%" + std::to_string(n.id);
    lhs.resize(std::max<std::size_t>(lhs.size(), 6), ' ');
    line += lhs + " = " + node_text(program, n.id);
    if (n.location) {
      if (line.size() < 44) line.resize(44, ' ');
      line += "  ; @" + std::to_string(n.location->line) + ":" + std::to_string(n.location->column);
    }
    os << line << '\n';
  }
  for (const auto& [name, id] : program.outputs) os << "output " << name << " = %" << id << '\n';
  for (const auto& [s, next] : program.updates) os << "update %" << s << " <- %" << next << '\n';
  return os.str();
}

namespace {
std::string dot_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (c == '\n') {
      o += "\\n";
      continue;
    }
    o += c;
  }
  return o;
}
}  // namespace

std::string to_dot(const Program& program, const std::vector<int>& layers, const std::vector<NodeId>* subset) {
  std::vector<NodeId> ids;
  if (subset) {
    for (NodeId id : *subset)
      if (id >= 0 && static_cast<std::size_t>(id) < program.nodes.size()) ids.push_back(id);
  } else {
    ids.resize(program.nodes.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<NodeId>(i);
  }
  std::vector<char> in(program.nodes.size(), 0);
  for (NodeId id : ids) in[static_cast<std::size_t>(id)] = 1;
  std::ostringstream os;
  os << "digraph tensorcode {\n  rankdir=TB; nodesep=0.18; ranksep=0.4;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f4f6fa\", fontname=\"DejaVu Sans\", fontsize=10,"
     << " width=1.3, height=0.52, fixedsize=true];\n";
  std::map<int, std::vector<NodeId>> by_layer;
  for (NodeId id : ids) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    std::string label = "#" + std::to_string(id) + " " + std::string(op_name(n.op));
    if (!n.name.empty()) label += " " + n.name;
    if (n.op == Op::Constant) label += " " + round_trip_number(n.value);
    os << "  n" << id << " [label=\"" << dot_escape(label) << "\"];\n";
    const auto i = static_cast<std::size_t>(id);
    by_layer[i < layers.size() ? layers[i] : 0].push_back(id);
  }
  for (NodeId id : ids) {
    for (NodeId a : program.nodes[static_cast<std::size_t>(id)].args) {
      if (in[static_cast<std::size_t>(a)]) os << "  n" << a << " -> n" << id << ";\n";
    }
  }
  for (const auto& [layer, members] : by_layer) {
    os << "  { rank=same;";
    for (NodeId id : members) os << " n" << id << ";";
    os << " }\n";
  }
  for (const auto& [name, id] : program.outputs) {
    if (!in[static_cast<std::size_t>(id)]) continue;
    os << "  \"out_" << dot_escape(name) << "\" [shape=plaintext, style=\"\", label=\"" << dot_escape(name) << "\"];\n";
    os << "  n" << id << " -> \"out_" << dot_escape(name) << "\" [style=dashed];\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace tc
