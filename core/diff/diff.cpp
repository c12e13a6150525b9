// diff_programs: the pairing of match.cpp turned into what changed — node
// fields, the inputs, parameters and state, the root policy, and each
// output's circuit and values on the given cases.
#include "diff/diff.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <span>
#include <unordered_map>

#include "base/number_text.h"
#include "diff/node_fields.h"
#include "eval/evaluator.h"

namespace tc {

namespace diff_detail {
namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

bool same_bits(const std::optional<double>& x, const std::optional<double>& y) {
  return x.has_value() == y.has_value() && (!x || bits(*x) == bits(*y));
}

}  // namespace

unsigned own_field_changes(const Node& x, const Node& y) {
  unsigned f = 0;
  if (x.op != y.op) f |= kFieldOp;
  const OpInfo& ix = op_info(x.op);
  const OpInfo& iy = op_info(y.op);
  if (ix.has(kNamed) != iy.has(kNamed) || (ix.has(kNamed) && x.name != y.name)) f |= kFieldName;
  if (ix.has(kHasValue) != iy.has(kHasValue) || (ix.has(kHasValue) && bits(x.value) != bits(y.value)))
    f |= kFieldValue;
  if (x.domain.has_value() != y.domain.has_value() ||
      (x.domain && (x.domain->type != y.domain->type || !same_bits(x.domain->min, y.domain->min) ||
                    !same_bits(x.domain->max, y.domain->max))))
    f |= kFieldDomain;
  if (ix.has(kHasCoefficients) || iy.has(kHasCoefficients)) {
    const LinearTerms& lx = x.linear();
    const LinearTerms& ly = y.linear();
    bool same = ix.has(kHasCoefficients) == iy.has(kHasCoefficients) &&
                lx.coefficients.size() == ly.coefficients.size() && lx.indices == ly.indices &&
                same_bits(lx.bias, ly.bias);
    for (std::size_t k = 0; same && k < lx.coefficients.size(); ++k)
      same = bits(lx.coefficients[k]) == bits(ly.coefficients[k]);
    if (!same) f |= kFieldCoefficients;
  }
  if (x.semantics != y.semantics || x.surrogate != y.surrogate || !same_bits(x.temperature, y.temperature))
    f |= kFieldPolicy;
  if (x.differentiable != y.differentiable) f |= kFieldDifferentiable;
  return f;
}

}  // namespace diff_detail

namespace {

constexpr std::string_view kFieldNames[] = {"op",           "name",   "value",          "domain", "args",
                                            "coefficients", "policy", "differentiable", "update"};

bool is_named_leaf(Op op) { return op == Op::Input || op == Op::Parameter || op == Op::State; }

/// next[state id] = its next-value node, -1 for nodes without an update.
std::vector<NodeId> next_values(const Program& p) {
  std::vector<NodeId> next(p.nodes.size(), -1);
  for (const auto& [state, value] : p.updates) next[static_cast<std::size_t>(state)] = value;
  return next;
}

unsigned pair_fields(const Program& a, const Program& b, const NodeMatch& m, const std::vector<NodeId>& next_a,
                     const std::vector<NodeId>& next_b, NodeId x, NodeId y) {
  const Node& p = a.nodes[static_cast<std::size_t>(x)];
  const Node& q = b.nodes[static_cast<std::size_t>(y)];
  unsigned f = diff_detail::own_field_changes(p, q);
  bool args = p.args.size() != q.args.size();
  for (std::size_t k = 0; !args && k < p.args.size(); ++k)
    args = m.a_to_b[static_cast<std::size_t>(p.args[k])] != q.args[k];
  if (args) f |= kFieldArgs;
  const NodeId nx = next_a[static_cast<std::size_t>(x)], ny = next_b[static_cast<std::size_t>(y)];
  if ((nx < 0) != (ny < 0) || (nx >= 0 && m.a_to_b[static_cast<std::size_t>(nx)] != ny)) f |= kFieldUpdate;
  return f;
}

std::string policy_number(double v) { return shortest_number(v); }

/// The columns one program reads, in its evaluator's input order.
Result<std::vector<std::span<const double>>> columns_for(const Program& p, const Evaluator& ev,
                                                         const DiffCases& cases, const char* side) {
  std::unordered_map<std::string_view, std::size_t> by_name;
  for (std::size_t k = 0; k < cases.names.size(); ++k) by_name.emplace(cases.names[k], k);
  std::vector<std::span<const double>> cols;
  for (NodeId id : ev.input_ids()) {
    const std::string& name = p.nodes[static_cast<std::size_t>(id)].name;
    auto it = by_name.find(name);
    if (it == by_name.end())
      return with_code(make_error("the cases give no value for input '" + quote_user(name) + "' of program " + side),
                       DiagCode::UnknownInput);
    cols.emplace_back(cases.columns[it->second].data(), cases.count);
  }
  return cols;
}

const Diagnostic* error_of(const BatchResult& r, std::size_t c) {
  auto it = std::lower_bound(r.errors.begin(), r.errors.end(), c,
                             [](const std::pair<std::size_t, Diagnostic>& e, std::size_t v) { return e.first < v; });
  return it != r.errors.end() && it->first == c ? &it->second : nullptr;
}

Status compare_values(const Program& a, const Program& b, const DiffOptions& o, Diff& d) {
  const DiffCases& cases = *o.cases;
  for (const std::string& name : cases.names)
    if (!a.find_named(Op::Input, name) && !b.find_named(Op::Input, name))
      return with_code(make_error("the cases name '" + quote_user(name) + "', an input of neither program"),
                       DiagCode::UnknownInput);
  BatchResult ra, rb;
  for (auto [p, side, out] : {std::tuple{&a, "a", &ra}, std::tuple{&b, "b", &rb}}) {
    auto ev = Evaluator::create(*p);
    if (!ev) return make_error("program " + std::string(side) + " cannot be evaluated: " + ev.error().message);
    auto cols = columns_for(*p, *ev, cases, side);
    if (!cols) return cols.error();
    if (Status s = ev->run_batch(*cols, cases.count, Env{}, *out, o.threads); !s)
      return make_error("program " + std::string(side) + ": " + s.error().message);
  }
  auto index_of = [](const Program& p) {
    std::unordered_map<std::string_view, std::size_t> idx;
    for (std::size_t k = 0; k < p.outputs.size(); ++k) idx.emplace(p.outputs[k].first, k);
    return idx;
  };
  const auto ia = index_of(a), ib = index_of(b);
  for (OutputItem& item : d.outputs) {
    if (!item.a || !item.b) continue;
    const std::size_t oa = ia.at(item.name), ob = ib.at(item.name);
    item.cases = cases.count;
    for (std::size_t c = 0; c < cases.count; ++c) {
      const bool fa = ra.failed[c] != 0, fb = rb.failed[c] != 0;
      const double va = fa ? 0.0 : ra.outputs[oa][c], vb = fb ? 0.0 : rb.outputs[ob][c];
      // Both failing is agreement (optimize may move which node fails first).
      const bool differ = fa != fb || (!fa && std::bit_cast<std::uint64_t>(va) != std::bit_cast<std::uint64_t>(vb));
      if (!differ) continue;
      ++item.differing;
      if (item.examples.size() >= o.max_examples) continue;
      CaseDifference cd;
      cd.index = c;
      if (fa) {
        const Diagnostic* e = error_of(ra, c);
        cd.a_error = e ? e->message : "the case failed";
      } else {
        cd.a = va;
      }
      if (fb) {
        const Diagnostic* e = error_of(rb, c);
        cd.b_error = e ? e->message : "the case failed";
      } else {
        cd.b = vb;
      }
      item.examples.push_back(std::move(cd));
    }
    if (item.differing > 0) item.status = ItemStatus::Changed;
  }
  d.compared_values = true;
  return ok_status();
}

}  // namespace

std::vector<std::string_view> node_field_names(unsigned fields) {
  std::vector<std::string_view> out;
  for (std::size_t k = 0; k < std::size(kFieldNames); ++k)
    if (fields & (1u << k)) out.push_back(kFieldNames[k]);
  return out;
}

std::string_view to_string(ItemStatus s) {
  switch (s) {
    case ItemStatus::Same: return "same";
    case ItemStatus::Changed: return "changed";
    case ItemStatus::Added: return "added";
    case ItemStatus::Removed: return "removed";
  }
  return "same";
}

Status add_diff_case(DiffCases& cases, const std::vector<std::pair<std::string, double>>& values) {
  if (cases.count == 0) {
    cases.names.clear();
    cases.columns.clear();
    for (const auto& [name, v] : values) {
      if (std::find(cases.names.begin(), cases.names.end(), name) != cases.names.end())
        return make_error("input '" + quote_user(name) + "' is given twice");
      cases.names.push_back(name);
      cases.columns.push_back({v});
    }
    cases.count = 1;
    return ok_status();
  }
  if (values.size() != cases.names.size()) {
    for (const std::string& name : cases.names)
      if (std::none_of(values.begin(), values.end(), [&](const auto& kv) { return kv.first == name; }))
        return make_error("the case gives no value for input '" + quote_user(name) + "' (the first case does)");
  }
  // Most cases list their names in the first case's order: check that
  // position first, search only when it differs.
  std::vector<std::uint8_t> seen(cases.names.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, v] = values[i];
    std::size_t k = i < cases.names.size() && cases.names[i] == name
                        ? i
                        : static_cast<std::size_t>(std::find(cases.names.begin(), cases.names.end(), name) -
                                                   cases.names.begin());
    if (k == cases.names.size())
      return make_error("the case gives input '" + quote_user(name) + "', which the first case does not");
    if (seen[k]) return make_error("input '" + quote_user(name) + "' is given twice");
    seen[k] = 1;
  }
  // Every check passed: append, so a refused case leaves the columns as they were.
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& [name, v] = values[i];
    std::size_t k = i < cases.names.size() && cases.names[i] == name
                        ? i
                        : static_cast<std::size_t>(std::find(cases.names.begin(), cases.names.end(), name) -
                                                   cases.names.begin());
    cases.columns[k].push_back(v);
  }
  ++cases.count;
  return ok_status();
}

bool Diff::same_structure() const {
  if (!changed.empty() || !added.empty() || !removed.empty() || !program.empty() || !leaves.empty()) return false;
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputItem& o) { return o.a && o.b && o.same_circuit; });
}

bool Diff::same_values() const {
  return std::all_of(outputs.begin(), outputs.end(), [](const OutputItem& o) { return o.differing == 0; });
}

Result<Diff> diff_programs(const Program& a, const Program& b, const DiffOptions& options) {
  Diff d;
  d.match = match_circuits(a, b);
  const NodeMatch& m = d.match;
  const auto next_a = next_values(a), next_b = next_values(b);

  // Nodes, and for each B node whether everything it depends on is paired
  // and unchanged (an output's circuit is the same when its node is).
  std::vector<unsigned> fields_b(b.nodes.size(), 0);
  std::vector<std::uint8_t> same_below(b.nodes.size(), 0);
  for (const Node& n : b.nodes) {
    const auto i = static_cast<std::size_t>(n.id);
    const NodeId x = m.b_to_a[i];
    if (x < 0) {
      d.added.push_back(n.id);
      continue;
    }
    fields_b[i] = pair_fields(a, b, m, next_a, next_b, x, n.id);
    if (fields_b[i] != 0) d.changed.push_back({x, n.id, fields_b[i]});
    else ++d.unchanged;
    bool same = fields_b[i] == 0;
    for (std::size_t k = 0; same && k < n.args.size(); ++k) same = same_below[static_cast<std::size_t>(n.args[k])] != 0;
    same_below[i] = same ? 1 : 0;
  }
  for (const Node& n : a.nodes)
    if (m.a_to_b[static_cast<std::size_t>(n.id)] < 0) d.removed.push_back(n.id);

  // The root policy.
  auto field = [&](const char* name, std::string x, std::string y) {
    if (x != y) d.program.push_back({name, std::move(x), std::move(y)});
  };
  field("semantics", std::string(to_string(a.semantics)), std::string(to_string(b.semantics)));
  field("dtype", std::string(to_string(a.dtype)), std::string(to_string(b.dtype)));
  field("surrogate", std::string(to_string(a.surrogate)), std::string(to_string(b.surrogate)));
  if (std::bit_cast<std::uint64_t>(a.temperature) != std::bit_cast<std::uint64_t>(b.temperature))
    field("temperature", policy_number(a.temperature), policy_number(b.temperature));

  // Inputs, parameters and state: a leaf whose partner is another kind of
  // node (a parameter frozen into a constant) is gone as a leaf.
  for (const Node& n : a.nodes) {
    if (!is_named_leaf(n.op)) continue;
    const NodeId y = m.a_to_b[static_cast<std::size_t>(n.id)];
    if (y < 0 || b.nodes[static_cast<std::size_t>(y)].op != n.op) {
      d.leaves.push_back({n.op, ItemStatus::Removed, n.id, std::nullopt, 0});
    } else if (unsigned f = fields_b[static_cast<std::size_t>(y)] & ~kFieldArgs; f != 0) {
      d.leaves.push_back({n.op, ItemStatus::Changed, n.id, y, f});
    }
  }
  for (const Node& n : b.nodes) {
    if (!is_named_leaf(n.op)) continue;
    const NodeId x = m.b_to_a[static_cast<std::size_t>(n.id)];
    if (x < 0 || a.nodes[static_cast<std::size_t>(x)].op != n.op)
      d.leaves.push_back({n.op, ItemStatus::Added, std::nullopt, n.id, 0});
  }

  // Outputs by name.
  std::unordered_map<std::string_view, NodeId> out_b;
  for (const auto& [name, id] : b.outputs) out_b.emplace(name, id);
  std::unordered_map<std::string_view, NodeId> out_a;
  for (const auto& [name, id] : a.outputs) {
    out_a.emplace(name, id);
    OutputItem item;
    item.name = name;
    item.a = id;
    auto it = out_b.find(name);
    if (it == out_b.end()) {
      item.status = ItemStatus::Removed;
    } else {
      item.b = it->second;
      item.same_circuit = m.a_to_b[static_cast<std::size_t>(id)] == it->second &&
                          same_below[static_cast<std::size_t>(it->second)] != 0;
      item.status = item.same_circuit ? ItemStatus::Same : ItemStatus::Changed;
    }
    d.outputs.push_back(std::move(item));
  }
  for (const auto& [name, id] : b.outputs) {
    if (out_a.count(name)) continue;
    OutputItem item;
    item.name = name;
    item.b = id;
    item.status = ItemStatus::Added;
    d.outputs.push_back(std::move(item));
  }

  if (options.cases)
    if (Status s = compare_values(a, b, options, d); !s) return s.error();
  return d;
}

}  // namespace tc
