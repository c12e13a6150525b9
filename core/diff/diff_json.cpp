// diff_to_json: the machine-readable form of a Diff. Every list is in a fixed
// order (node ids, the programs' output and leaf order), so equal inputs give
// byte-identical text and golden files can hold it.
#include <cmath>

#include "base/json_append.h"
#include "base/number_text.h"
#include "diff/diff_report.h"

namespace tc {
namespace {

using Json = nlohmann::ordered_json;

/// Integral values without a fraction, others as doubles; a non-finite value
/// (relaxed semantics is unchecked) as its text, since JSON has no NaN.
Json number(double v) {
  if (!std::isfinite(v)) return shortest_number(v);
  if (v == std::floor(v) && std::fabs(v) <= 9007199254740992.0) return static_cast<std::int64_t>(v);
  return v;
}

Json location(const Node& n) {
  if (!n.location || !n.location->valid()) return nullptr;
  return Json{{"line", n.location->line}, {"column", n.location->column}};
}

Json node_ref(const Program& p, NodeId id) {
  const Node& n = p.nodes[static_cast<std::size_t>(id)];
  Json j;
  j["op"] = std::string(op_name(n.op));
  j["location"] = location(n);
  if (!n.iteration.empty()) {
    Json path = Json::array();
    for (const LoopStep& s : n.iteration) path.push_back(Json::array({s.variable, s.value}));
    j["iteration"] = std::move(path);
  }
  return j;
}

/// Appends the members of `from` to the object `into`.
void merge(Json& into, const Json& from) {
  for (auto it = from.begin(); it != from.end(); ++it) json_append(into, it.key(), *it);
}

Json fields_json(unsigned fields) {
  Json j = Json::array();
  for (std::string_view f : node_field_names(fields)) j.push_back(std::string(f));
  return j;
}

Json leaf_side(const Node& n) {
  Json j;
  j["id"] = n.id;
  j["name"] = n.name;
  if (n.op == Op::Parameter) j["value"] = number(n.value);
  if (n.op == Op::State) j["initial"] = number(n.value);
  j["domain"] = n.domain ? Json(n.domain->to_string()) : Json(nullptr);
  if (n.op != Op::State) j["differentiable"] = n.differentiable;
  return j;
}

Json case_side(const std::optional<double>& v, const std::string& error) {
  if (v) return number(*v);
  return Json{{"error", error}};
}

}  // namespace

Json diff_to_json(const Diff& d, const Program& a, const Program& b) {
  Json j;
  j["format"] = "tensorcode.diff";
  j["version"] = 1;
  j["same"] = d.same();
  j["same_structure"] = d.same_structure();
  j["same_values"] = d.compared_values ? Json(d.same_values()) : Json(nullptr);
  j["a"] = Json{{"nodes", a.nodes.size()}, {"outputs", a.outputs.size()}};
  j["b"] = Json{{"nodes", b.nodes.size()}, {"outputs", b.outputs.size()}};
  j["summary"] = Json{{"unchanged", d.unchanged},
                      {"changed", d.changed.size()},
                      {"added", d.added.size()},
                      {"removed", d.removed.size()}};

  Json program = Json::array();
  for (const ProgramField& f : d.program) program.push_back(Json{{"field", f.field}, {"a", f.a}, {"b", f.b}});
  j["program"] = std::move(program);

  Json inputs = Json::array(), params = Json::array(), state = Json::array();
  for (const LeafItem& item : d.leaves) {
    const Node& any = item.b ? b.nodes[static_cast<std::size_t>(*item.b)] : a.nodes[static_cast<std::size_t>(*item.a)];
    Json e;
    e["name"] = any.name;
    e["status"] = std::string(to_string(item.status));
    e["fields"] = fields_json(item.fields);
    if (item.a) e["a"] = leaf_side(a.nodes[static_cast<std::size_t>(*item.a)]);
    if (item.b) e["b"] = leaf_side(b.nodes[static_cast<std::size_t>(*item.b)]);
    (item.op == Op::Input ? inputs : item.op == Op::Parameter ? params : state).push_back(std::move(e));
  }
  j["inputs"] = std::move(inputs);
  j["parameters"] = std::move(params);
  j["state"] = std::move(state);

  Json changed = Json::array(), added = Json::array(), removed = Json::array();
  for (const ChangedNode& c : d.changed) {
    const Node& x = a.nodes[static_cast<std::size_t>(c.a)];
    const Node& y = b.nodes[static_cast<std::size_t>(c.b)];
    Json e;
    e["a"] = c.a;
    e["b"] = c.b;
    merge(e, node_ref(b, c.b));
    e["fields"] = fields_json(c.fields);
    if (c.fields & kFieldOp) e["a_op"] = std::string(op_name(x.op));
    if (c.fields & kFieldName) {
      e["a_name"] = x.name;
      e["b_name"] = y.name;
    }
    if ((c.fields & kFieldValue) && op_info(x.op).has(kHasValue) && op_info(y.op).has(kHasValue)) {
      e["a_value"] = number(x.value);
      e["b_value"] = number(y.value);
    }
    changed.push_back(std::move(e));
  }
  for (NodeId id : d.added) {
    Json e{{"b", id}};
    merge(e, node_ref(b, id));
    added.push_back(std::move(e));
  }
  for (NodeId id : d.removed) {
    Json e{{"a", id}};
    merge(e, node_ref(a, id));
    removed.push_back(std::move(e));
  }
  j["nodes"] = Json{{"changed", std::move(changed)}, {"added", std::move(added)}, {"removed", std::move(removed)}};

  Json outputs = Json::array();
  for (const OutputItem& o : d.outputs) {
    Json e;
    e["name"] = o.name;
    e["status"] = std::string(to_string(o.status));
    e["a"] = o.a ? Json(*o.a) : Json(nullptr);
    e["b"] = o.b ? Json(*o.b) : Json(nullptr);
    if (o.a && o.b) {
      e["circuit"] = o.same_circuit ? "same" : "changed";
      if (d.compared_values) {
        e["cases"] = o.cases;
        e["differing"] = o.differing;
        Json ex = Json::array();
        for (const CaseDifference& c : o.examples)
          ex.push_back(Json{{"case", c.index}, {"a", case_side(c.a, c.a_error)}, {"b", case_side(c.b, c.b_error)}});
        e["examples"] = std::move(ex);
      }
    }
    outputs.push_back(std::move(e));
  }
  j["outputs"] = std::move(outputs);
  return j;
}

}  // namespace tc
