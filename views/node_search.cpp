#include "views/node_search.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "ir/op.h"

namespace tc {
namespace views {
namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<long> whole_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::vector<NodeId> find_nodes(const Program& program, const std::string& query) {
  std::vector<NodeId> out;
  const std::string q = trimmed(query);
  if (q.empty()) return out;
  const std::string lq = lower(q);
  // An id.
  const std::string id_text = q[0] == '#' || q[0] == '%' ? q.substr(1) : q;
  if (auto id = whole_number(id_text)) {
    if (static_cast<std::size_t>(*id) < program.nodes.size()) out.push_back(static_cast<NodeId>(*id));
    return out;
  }
  // A source line.
  std::optional<long> line;
  if (lq.rfind("line ", 0) == 0) line = whole_number(trimmed(q.substr(5)));
  else if (lq[0] == 'l' || lq[0] == ':') line = whole_number(q.substr(1));
  if (line) {
    for (const auto& n : program.nodes)
      if (n.location && n.location->line == *line) out.push_back(n.id);
    return out;
  }
  // An op.
  if (auto op = op_from_name(lq)) {
    for (const auto& n : program.nodes)
      if (n.op == *op) out.push_back(n.id);
    return out;
  }
  // Names: exact first (nodes, then outputs), then containing the text.
  std::vector<bool> taken(program.nodes.size(), false);
  auto add = [&](NodeId id) {
    if (id >= 0 && static_cast<std::size_t>(id) < taken.size() && !taken[static_cast<std::size_t>(id)]) {
      taken[static_cast<std::size_t>(id)] = true;
      out.push_back(id);
    }
  };
  for (const auto& n : program.nodes)
    if (!n.name.empty() && n.name == q) add(n.id);
  for (const auto& [name, id] : program.outputs)
    if (name == q) add(id);
  for (const auto& n : program.nodes)
    if (!n.name.empty() && lower(n.name).find(lq) != std::string::npos) add(n.id);
  for (const auto& [name, id] : program.outputs)
    if (lower(name).find(lq) != std::string::npos) add(id);
  return out;
}

}  // namespace views
}  // namespace tc
