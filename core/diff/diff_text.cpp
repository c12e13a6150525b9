// diff_to_text: the diff for a person. One section per kind of change, each
// list cut after `limit` lines, node lines in the IR listing's spelling
// (`%id op operands @line:col [i=2]`), and a verdict line last.
#include <algorithm>
#include <map>
#include <sstream>

#include "base/number_text.h"
#include "diff/diff_report.h"
#include "ir/printer.h"

namespace tc {
namespace {

constexpr std::size_t kMaxNodeText = 96;  // an affine node of 1000 terms prints as its start

std::string short_node(const Program& p, NodeId id) {
  std::string t = "%" + std::to_string(id) + " " + node_text(p, id);
  if (t.size() > kMaxNodeText) t = t.substr(0, kMaxNodeText - 3) + "...";
  return t;
}

std::string place(const Node& n) {
  std::string s;
  if (n.location && n.location->valid())
    s += " @" + std::to_string(n.location->line) + ":" + std::to_string(n.location->column);
  if (!n.iteration.empty()) {
    s += " [";
    for (std::size_t k = 0; k < n.iteration.size(); ++k)
      s += (k ? ", " : "") + n.iteration[k].variable + "=" + std::to_string(n.iteration[k].value);
    s += "]";
  }
  return s;
}

/// "add 2, constant 1": how many of each op a list holds, most first.
std::string op_counts(const Program& p, const std::vector<NodeId>& ids) {
  std::map<std::string_view, std::size_t> counts;
  for (NodeId id : ids) ++counts[op_name(p.nodes[static_cast<std::size_t>(id)].op)];
  std::vector<std::pair<std::size_t, std::string_view>> sorted;
  for (const auto& [op, n] : counts) sorted.emplace_back(n, op);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string s;
  for (const auto& [n, op] : sorted) s += (s.empty() ? "" : ", ") + std::string(op) + " " + std::to_string(n);
  return s;
}

std::string fields_text(unsigned fields) {
  std::string s;
  for (std::string_view f : node_field_names(fields)) s += (s.empty() ? "" : ", ") + std::string(f);
  return s;
}

std::string leaf_text(const Node& n) {
  std::string s = n.name;
  if (n.op == Op::Parameter || n.op == Op::State) s += " = " + shortest_number(n.value);
  if (n.domain) s += " : " + n.domain->to_string();
  return s;
}

class Lines {
 public:
  Lines(std::ostringstream& os, std::size_t limit) : os_(os), limit_(limit) {}
  void add(const std::string& line) {
    if (shown_ < limit_) os_ << "  " << line << '\n';
    ++shown_;
  }
  ~Lines() {
    if (shown_ > limit_) os_ << "  ... and " << (shown_ - limit_) << " more\n";
  }

 private:
  std::ostringstream& os_;
  std::size_t limit_;
  std::size_t shown_ = 0;
};

std::string case_value(const std::optional<double>& v, const std::string& error) {
  return v ? shortest_number(*v) : "error: " + error;
}

}  // namespace

std::string diff_to_text(const Diff& d, const Program& a, const Program& b, const DiffTextOptions& o) {
  std::ostringstream os;
  os << "--- " << o.a_label << " (" << a.nodes.size() << " nodes)\n";
  os << "+++ " << o.b_label << " (" << b.nodes.size() << " nodes)\n";

  if (!d.program.empty()) {
    os << "program:\n";
    Lines lines(os, o.limit);
    for (const ProgramField& f : d.program) lines.add(f.field + ": " + f.a + " -> " + f.b);
  }

  for (Op kind : {Op::Input, Op::Parameter, Op::State}) {
    std::vector<const LeafItem*> items;
    for (const LeafItem& item : d.leaves)
      if (item.op == kind) items.push_back(&item);
    if (items.empty()) continue;
    os << (kind == Op::Input ? "inputs:\n" : kind == Op::Parameter ? "parameters:\n" : "state:\n");
    Lines lines(os, o.limit);
    for (const LeafItem* item : items) {
      if (item->status == ItemStatus::Added) {
        lines.add("+ " + leaf_text(b.nodes[static_cast<std::size_t>(*item->b)]));
      } else if (item->status == ItemStatus::Removed) {
        lines.add("- " + leaf_text(a.nodes[static_cast<std::size_t>(*item->a)]));
      } else {
        lines.add("~ " + leaf_text(a.nodes[static_cast<std::size_t>(*item->a)]) + " -> " +
                  leaf_text(b.nodes[static_cast<std::size_t>(*item->b)]) + " (" + fields_text(item->fields) + ")");
      }
    }
  }

  os << "nodes: " << d.unchanged << " unchanged, " << d.changed.size() << " changed, " << d.added.size() << " added";
  if (!d.added.empty()) os << " (" << op_counts(b, d.added) << ")";
  os << ", " << d.removed.size() << " removed";
  if (!d.removed.empty()) os << " (" << op_counts(a, d.removed) << ")";
  os << '\n';
  {
    Lines lines(os, o.limit);
    for (const ChangedNode& c : d.changed)
      lines.add("~ " + short_node(a, c.a) + " -> " + short_node(b, c.b) + place(b.nodes[static_cast<std::size_t>(c.b)]) +
                " (" + fields_text(c.fields) + ")");
    for (NodeId id : d.added) lines.add("+ " + short_node(b, id) + place(b.nodes[static_cast<std::size_t>(id)]));
    for (NodeId id : d.removed) lines.add("- " + short_node(a, id) + place(a.nodes[static_cast<std::size_t>(id)]));
  }

  os << "outputs:\n";
  {
    Lines lines(os, o.limit);
    for (const OutputItem& out : d.outputs) {
      if (out.status == ItemStatus::Added) {
        lines.add("+ " + out.name + " = %" + std::to_string(*out.b));
        continue;
      }
      if (out.status == ItemStatus::Removed) {
        lines.add("- " + out.name + " = %" + std::to_string(*out.a));
        continue;
      }
      std::string s = std::string(out.status == ItemStatus::Same ? "= " : "~ ") + out.name + ": circuit " +
                      (out.same_circuit ? "same" : "changed");
      if (d.compared_values) {
        if (out.differing == 0)
          s += "; " + std::to_string(out.cases) + (out.cases == 1 ? " case agrees" : " cases agree");
        else
          s += "; " + std::to_string(out.differing) + " of " + std::to_string(out.cases) +
               (out.differing == 1 ? " case differs" : " cases differ");
      }
      lines.add(s);
      for (const CaseDifference& c : out.examples)
        lines.add("    case " + std::to_string(c.index) + ": " + case_value(c.a, c.a_error) + " vs " +
                  case_value(c.b, c.b_error));
    }
  }

  if (d.same()) {
    os << (d.compared_values ? "same circuits, same values\n" : "same circuits\n");
  } else {
    std::string why = d.same_structure() ? "same circuits" : "circuits differ";
    if (d.compared_values) why += d.same_values() ? ", same values" : ", values differ";
    os << why << '\n';
  }
  return os.str();
}

}  // namespace tc
