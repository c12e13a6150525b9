#include "ir/program.h"

#include <cmath>
#include <set>
#include <string>

namespace tc {

std::optional<NodeId> Program::output(std::string_view name) const {
  for (const auto& [n, id] : outputs)
    if (n == name) return id;
  return std::nullopt;
}

std::optional<NodeId> Program::find_named(Op op, std::string_view name) const {
  for (const Node& n : nodes)
    if (n.op == op && n.name == name) return n.id;
  return std::nullopt;
}

std::vector<NodeId> Program::nodes_of(Op op) const {
  std::vector<NodeId> out;
  for (const Node& n : nodes)
    if (n.op == op) out.push_back(n.id);
  return out;
}

std::string describe_node(const Program& program, NodeId id) {
  std::string out = "node " + std::to_string(id);
  if (id >= 0 && static_cast<std::size_t>(id) < program.nodes.size()) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    out += " (";
    out += op_name(n.op);
    if (!n.name.empty()) out += " '" + n.name + "'";
    out += ")";
    if (n.location && n.location->valid())
      out += " at line " + std::to_string(n.location->line) + ", column " + std::to_string(n.location->column);
  }
  return out;
}

namespace {

Diagnostic node_error(const Program& p, const Node& n, const std::string& what) {
  return make_error(describe_node(p, n.id) + ": " + what, n.location, n.id);
}

Status check_domain(const Program& p, const Node& n, const Domain& d) {
  if (d.min && !std::isfinite(*d.min)) return node_error(p, n, "field 'domain': min is not finite");
  if (d.max && !std::isfinite(*d.max)) return node_error(p, n, "field 'domain': max is not finite");
  Domain full{d.type, std::nullopt, std::nullopt};
  if (d.lo() > d.hi()) return node_error(p, n, "field 'domain': min is above max");
  if (d.lo() < full.lo() || d.hi() > full.hi())
    return node_error(p, n, "field 'domain': range exceeds what " + std::string(to_string(d.type)) + " can represent");
  if (d.is_integral() && (d.lo() != std::floor(d.lo()) || d.hi() != std::floor(d.hi())))
    return node_error(p, n, "field 'domain': integer bounds must be integers");
  return ok_status();
}

}  // namespace

Status validate(const Program& p) {
  if (!std::isfinite(p.temperature) || p.temperature <= 0)
    return make_error("field 'temperature' must be finite and greater than 0");
  std::set<std::string> inputs, params, states;
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    if (n.id != static_cast<NodeId>(i))
      return make_error("node at index " + std::to_string(i) + ": field 'id' is " + std::to_string(n.id) +
                            ", expected " + std::to_string(i),
                        n.location);
    const OpInfo& info = op_info(n.op);
    const int nargs = static_cast<int>(n.args.size());
    if (nargs < info.min_args || (info.max_args >= 0 && nargs > info.max_args)) {
      std::string want = info.max_args < 0 ? "at least " + std::to_string(info.min_args)
                         : info.min_args == info.max_args ? std::to_string(info.min_args)
                                                          : std::to_string(info.min_args) + " to " +
                                                                std::to_string(info.max_args);
      return node_error(p, n, "field 'args': expected " + want + " arguments, got " + std::to_string(nargs));
    }
    for (NodeId a : n.args)
      if (a < 0 || a >= n.id)
        return node_error(p, n, "field 'args': argument " + std::to_string(a) + " is not a smaller node id");
    if (info.has(kNamed) && n.name.empty()) return node_error(p, n, "field 'name' is missing or empty");
    if (!info.has(kNamed) && !n.name.empty()) return node_error(p, n, "field 'name' is not allowed on this op");
    if (info.has(kHasValue) && !std::isfinite(n.value)) return node_error(p, n, "field 'value' is not finite");
    if (info.has(kHasDomain) && !n.domain) return node_error(p, n, "field 'domain' is required");
    if (n.domain) {
      if (Status s = check_domain(p, n, *n.domain); !s) return s;
    }
    if (n.temperature && (!std::isfinite(*n.temperature) || *n.temperature <= 0))
      return node_error(p, n, "field 'temperature' must be finite and greater than 0");
    const bool linear = info.has(kHasCoefficients);
    const LinearTerms& lin = n.linear();
    if (!linear && (!lin.coefficients.empty() || lin.bias || !lin.indices.empty()))
      return node_error(p, n, "fields 'coefficients', 'bias' and 'indices' belong to affine nodes only");
    for (double c : lin.coefficients)
      if (!std::isfinite(c)) return node_error(p, n, "field 'coefficients': a coefficient is not finite");
    if (lin.bias && !std::isfinite(*lin.bias)) return node_error(p, n, "field 'bias' is not finite");
    switch (n.op) {
      case Op::Input:
        if (!inputs.insert(n.name).second) return node_error(p, n, "field 'name': duplicate input name");
        break;
      case Op::Parameter:
        if (!params.insert(n.name).second) return node_error(p, n, "field 'name': duplicate parameter name");
        break;
      case Op::State:
        if (!states.insert(n.name).second) return node_error(p, n, "field 'name': duplicate state name");
        if (auto why = n.domain->check(n.value)) return node_error(p, n, "field 'value': initial " + *why);
        break;
      case Op::GatherOneHot:
        if (nargs % 2 != 0) return node_error(p, n, "field 'args': expected n selectors then n values (an even count)");
        break;
      case Op::Affine:
        if (lin.coefficients.size() != n.args.size())
          return node_error(p, n, "field 'coefficients': expected one coefficient per argument");
        if (!lin.indices.empty()) return node_error(p, n, "field 'indices' belongs to sparse_affine only");
        break;
      case Op::SparseAffine: {
        if (lin.indices.empty()) return node_error(p, n, "field 'indices' must list at least one position");
        if (lin.coefficients.size() != lin.indices.size())
          return node_error(p, n, "field 'coefficients': expected one coefficient per index");
        for (std::size_t j = 0; j < lin.indices.size(); ++j) {
          if (lin.indices[j] < 0 || lin.indices[j] >= nargs)
            return node_error(p, n, "field 'indices': " + std::to_string(lin.indices[j]) + " is not an argument position");
          if (j > 0 && lin.indices[j] <= lin.indices[j - 1])
            return node_error(p, n, "field 'indices' must be strictly ascending");
        }
        break;
      }
      default:
        break;  // the table's arity and flags, checked above, are all there is to check
    }
  }
  for (const std::string& name : params)
    if (inputs.count(name)) return make_error("parameter '" + name + "' has the same name as an input");
  if (p.outputs.empty()) return make_error("field 'outputs': a program needs at least one output");
  std::set<std::string> out_names;
  for (const auto& [name, id] : p.outputs) {
    if (name.empty()) return make_error("field 'outputs': an output name is empty");
    if (!out_names.insert(name).second) return make_error("field 'outputs': duplicate output '" + name + "'");
    if (id < 0 || static_cast<std::size_t>(id) >= p.nodes.size())
      return make_error("field 'outputs': output '" + name + "' refers to missing node " + std::to_string(id));
  }
  std::set<NodeId> updated;
  for (const auto& [state, next] : p.updates) {
    if (state < 0 || static_cast<std::size_t>(state) >= p.nodes.size() || p.nodes[static_cast<std::size_t>(state)].op != Op::State)
      return make_error("field 'updates': key " + std::to_string(state) + " is not a state node");
    if (!updated.insert(state).second)
      return make_error("field 'updates': state node " + std::to_string(state) + " is updated twice");
    if (next < 0 || static_cast<std::size_t>(next) >= p.nodes.size())
      return make_error("field 'updates': state node " + std::to_string(state) + " has missing next-value node " +
                        std::to_string(next));
  }
  return ok_status();
}

Result<Program> freeze(const Program& program, const std::vector<std::string>& names) {
  std::set<std::string> wanted(names.begin(), names.end());
  for (const std::string& name : wanted)
    if (!program.find_named(Op::Parameter, name)) return make_error("cannot freeze '" + name + "': no such parameter");
  Program out = program;
  for (Node& n : out.nodes) {
    if (n.op != Op::Parameter || (!wanted.empty() && !wanted.count(n.name))) continue;
    n.op = Op::Constant;
    n.name.clear();
    n.differentiable = false;
  }
  return out;
}

}  // namespace tc
