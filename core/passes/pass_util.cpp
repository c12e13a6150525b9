#include "passes/pass_util.h"

#include <algorithm>
#include <string>

namespace tc::passes {

Status validate_input(const Program& program, std::string_view pass) {
  if (Status s = validate(program); !s) {
    Diagnostic d = s.error();
    d.message = std::string(pass) + ": invalid program: " + d.message;
    return d;
  }
  return ok_status();
}

Status validate_output(const Program& program, std::string_view pass) {
  if (Status s = validate(program); !s) {
    Diagnostic d = s.error();
    d.message = "internal error: " + std::string(pass) + " produced an invalid program: " + d.message;
    return d;
  }
  return ok_status();
}

std::vector<int> use_counts(const Program& program) {
  std::vector<int> uses(program.nodes.size(), 0);
  for (const Node& n : program.nodes)
    for (NodeId a : n.args) ++uses[static_cast<std::size_t>(a)];
  for (const auto& [_, id] : program.outputs) ++uses[static_cast<std::size_t>(id)];
  for (const auto& [_, next] : program.updates) ++uses[static_cast<std::size_t>(next)];
  return uses;
}

std::vector<bool> live_nodes(const Program& program) {
  std::vector<bool> live(program.nodes.size(), false);
  for (const auto& [_, id] : program.outputs) live[static_cast<std::size_t>(id)] = true;
  for (const auto& [state, next] : program.updates) {
    live[static_cast<std::size_t>(state)] = true;
    live[static_cast<std::size_t>(next)] = true;
  }
  // Arguments always have smaller ids, so one backward sweep reaches every
  // dependency without recursion (no stack depth limit on long chains).
  for (std::size_t i = program.nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    for (NodeId a : program.nodes[i].args) live[static_cast<std::size_t>(a)] = true;
  }
  return live;
}

std::vector<bool> live_nodes_lazy(const Program& program,
                                  const std::function<std::optional<bool>(const Node& select)>& decided) {
  std::vector<bool> live(program.nodes.size(), false);
  for (const auto& [_, id] : program.outputs) live[static_cast<std::size_t>(id)] = true;
  for (const auto& [state, next] : program.updates) {
    live[static_cast<std::size_t>(state)] = true;
    live[static_cast<std::size_t>(next)] = true;
  }
  for (std::size_t i = program.nodes.size(); i-- > 0;) {
    if (!live[i]) continue;
    const Node& n = program.nodes[i];
    if (n.op == Op::Select && program.semantics_of(n) != Semantics::Relaxed) {
      if (std::optional<bool> yes = decided(n)) {
        live[static_cast<std::size_t>(n.args[0])] = true;
        live[static_cast<std::size_t>(n.args[*yes ? 1 : 2])] = true;
        continue;
      }
    }
    for (NodeId a : n.args) live[static_cast<std::size_t>(a)] = true;
  }
  return live;
}

std::vector<NodeId> identity_alias(const Program& program) {
  std::vector<NodeId> alias(program.nodes.size());
  for (std::size_t i = 0; i < alias.size(); ++i) alias[i] = static_cast<NodeId>(i);
  return alias;
}

namespace {
// Each node's final target: an alias may point at a node that is itself
// aliased, and always at an earlier one, so one forward sweep resolves chains.
std::vector<NodeId> alias_targets(const std::vector<NodeId>& alias) {
  std::vector<NodeId> target(alias.size());
  for (std::size_t i = 0; i < alias.size(); ++i) {
    const NodeId t = alias[i];
    TC_ASSERT(t >= 0 && static_cast<std::size_t>(t) <= i);
    target[i] = static_cast<std::size_t>(t) == i ? t : target[static_cast<std::size_t>(t)];
  }
  return target;
}
}  // namespace

Program compact(const Program& program, const std::vector<bool>& keep, const std::vector<NodeId>& alias) {
  const std::size_t n = program.nodes.size();
  TC_ASSERT(keep.size() == n && alias.size() == n);
  const std::vector<NodeId> target = alias_targets(alias);
  std::vector<NodeId> new_id(n, -1);
  Program out;
  out.nodes.reserve(static_cast<std::size_t>(std::count(keep.begin(), keep.end(), true)));
  out.semantics = program.semantics;
  out.dtype = program.dtype;
  out.surrogate = program.surrogate;
  out.temperature = program.temperature;
  auto map = [&](NodeId old) {
    NodeId m = new_id[static_cast<std::size_t>(target[static_cast<std::size_t>(old)])];
    TC_ASSERT(m >= 0);
    return m;
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (!keep[i] || target[i] != static_cast<NodeId>(i)) continue;
    Node node = program.nodes[i];
    for (NodeId& a : node.args) a = map(a);
    node.id = static_cast<NodeId>(out.nodes.size());
    new_id[i] = node.id;
    out.nodes.push_back(std::move(node));
  }
  for (const auto& [name, id] : program.outputs) out.outputs.emplace_back(name, map(id));
  for (const auto& [state, next] : program.updates) out.updates.emplace_back(map(state), map(next));
  return out;
}

Program compact(Program&& program, const std::vector<bool>& keep, const std::vector<NodeId>& alias) {
  const std::size_t n = program.nodes.size();
  TC_ASSERT(keep.size() == n && alias.size() == n);
  const std::vector<NodeId> target = alias_targets(alias);
  std::vector<NodeId> new_id(n, -1);
  auto map = [&](NodeId old) {
    NodeId m = new_id[static_cast<std::size_t>(target[static_cast<std::size_t>(old)])];
    TC_ASSERT(m >= 0);
    return m;
  };
  // Arguments point at earlier nodes, whose new ids are known when a node is
  // reached, and a node only ever moves down (to w <= i).
  std::size_t w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!keep[i] || target[i] != static_cast<NodeId>(i)) continue;
    Node& node = program.nodes[i];
    for (NodeId& a : node.args) a = map(a);
    node.id = static_cast<NodeId>(w);
    new_id[i] = node.id;
    if (w != i) program.nodes[w] = std::move(node);
    ++w;
  }
  program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(w), program.nodes.end());
  for (auto& [name, id] : program.outputs) id = map(id);
  for (auto& [state, next] : program.updates) {
    state = map(state);
    next = map(next);
  }
  return std::move(program);
}

bool same_policy(const Node& a, const Node& b) {
  return a.semantics == b.semantics && a.surrogate == b.surrogate && a.temperature == b.temperature;
}

}  // namespace tc::passes
