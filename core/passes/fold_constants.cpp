#include "passes/fold_constants.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>

#include "ir/op_semantics.h"
#include "passes/pass_util.h"
#include "base/number_text.h"

namespace tc {

namespace {

std::string num(double v) {
  return shortest_number(v);
}

class Folder {
 public:
  Folder(const Program& p, const FoldOptions& o) : p_(p), o_(o), f32_(p.dtype == Dtype::Float32) {}

  Result<Program> run() {
    const std::size_t n = p_.nodes.size();
    live_ = passes::live_nodes(p_);
    value_.assign(n, std::nullopt);
    alias_ = passes::identity_alias(p_);
    out_ = p_;
    errors_.assign(n, std::nullopt);
    for (const Node& node : p_.nodes) {
      // An error is only reported if the node really runs: a branch of a
      // select whose condition folded to a constant never does.
      if (Status s = visit(node); !s) errors_[static_cast<std::size_t>(node.id)] = s.error();
    }
    const std::vector<bool> runs = passes::live_nodes_lazy(p_, [&](const Node& select) -> std::optional<bool> {
      auto c = value_[static_cast<std::size_t>(target(select.args[0]))];
      if (!c) return std::nullopt;
      return *c != 0.0;
    });
    for (std::size_t i = 0; i < n; ++i)
      if (errors_[i] && runs[i]) return *errors_[i];
    Program folded = passes::compact(out_, std::vector<bool>(n, true), alias_);
    if (Status s = passes::validate_output(folded, "constant folding"); !s) return s.error();
    return folded;
  }

 private:
  double round(double v) const { return f32_ ? round_f32(v) : v; }

  // The constant value of argument k, looking through replaced nodes.
  std::optional<double> arg(const Node& n, std::size_t k) const {
    return value_[static_cast<std::size_t>(target(n.args[k]))];
  }
  NodeId target(NodeId id) const {
    while (alias_[static_cast<std::size_t>(id)] != id) id = alias_[static_cast<std::size_t>(id)];
    return id;
  }
  bool all_constant(const Node& n) const {
    for (std::size_t k = 0; k < n.args.size(); ++k)
      if (!arg(n, k)) return false;
    return true;
  }

  Diagnostic error(const Node& n, const std::string& what) const {
    return make_error(describe_node(p_, n.id) + ": " + what, n.location, n.id);
  }

  Status visit(const Node& n) {
    const std::size_t i = static_cast<std::size_t>(n.id);
    if (n.op == Op::Constant) {
      // The evaluator rounds constants under float32; a constant that
      // overflows binary32 fails whenever it is used.
      double v = round(n.value);
      if (!std::isfinite(v)) {
        if (live_[i]) return error(n, "constant " + num(n.value) + " overflows float32");
        return ok_status();
      }
      value_[i] = v;
      return ok_status();
    }
    // A raise is never folded: it fails only the cases that reach it, which
    // a select decides at run time.
    if (!live_[i] || is_leaf(n.op) || n.op == Op::Call || n.op == Op::Raise) return ok_status();
    const Semantics semantics = p_.semantics_of(n);
    if (semantics == Semantics::Relaxed) return ok_status();
    const bool decide = o_.fold_decisions && semantics == Semantics::Exact;
    switch (n.op) {
      case Op::Select: {
        auto c = arg(n, 0);
        if (!c) return ok_status();
        if (!decide && !all_constant(n)) return ok_status();
        return choose(n, *c != 0.0 ? 1 : 2);
      }
      case Op::Gather: {
        auto index = arg(n, 0);
        if (!index) return ok_status();
        if (!decide && !all_constant(n)) return ok_status();
        const std::size_t count = n.args.size() - 1;
        if (sem::Failure f = sem::gather_index(*index, count)) return error(n, sem::describe_constant(f, num));
        if (!unchosen_cannot_fail(n, 1, static_cast<std::size_t>(*index) + 1)) return ok_status();
        return choose(n, static_cast<std::size_t>(*index) + 1);
      }
      case Op::GatherOneHot: {
        const std::size_t count = n.args.size() / 2;
        std::optional<std::size_t> chosen;
        int ones = 0;
        for (std::size_t k = 0; k < count; ++k) {
          auto s = arg(n, k);
          if (!s) return ok_status();
          if (sem::Failure f = sem::one_hot_selector(k, *s)) return error(n, sem::describe_constant(f, num));
          if (*s == 1.0) {
            ++ones;
            if (!chosen) chosen = k;
          }
        }
        if (sem::Failure f = sem::one_hot_count(static_cast<std::size_t>(ones)))
          return error(n, sem::describe_constant(f, num));
        if (!decide && !all_constant(n)) return ok_status();
        if (!unchosen_cannot_fail(n, count, count + *chosen)) return ok_status();
        return choose(n, count + *chosen);
      }
      default: {
        // Every other computing op (leaves and calls returned above) folds
        // through its kernel, sem::value, whose switch lists every op;
        // comparisons only when decisions may be folded.
        if (is_comparison(n.op) && !o_.fold_decisions) return ok_status();
        if (!all_constant(n)) return ok_status();
        auto v = compute(n);
        if (!v) return v.error();
        return replace_by_constant(n, *v);
      }
    }
  }

  // Unlike a select, a gather and a gather_one_hot evaluate every listed
  // value, so a failure of an unchosen one fails the node. Folding to the
  // chosen value would drop that failure; it is allowed only when the values
  // at positions [first, args) other than `chosen` cannot fail there: leaves
  // (inputs, parameters and state are checked when they are loaded) and
  // constants already known to pass (their own errors are reported apart).
  bool unchosen_cannot_fail(const Node& n, std::size_t first, std::size_t chosen) const {
    for (std::size_t k = first; k < n.args.size(); ++k) {
      if (k == chosen) continue;
      const Node& a = p_.nodes[static_cast<std::size_t>(target(n.args[k]))];
      if (a.op == Op::Constant || !is_leaf(a.op)) {
        auto v = value_[static_cast<std::size_t>(a.id)];
        if (!v) return false;
        if (a.op == Op::Constant && a.domain && a.domain->check(*v)) return false;
      }
    }
    return true;
  }

  // Exact select / gather / gather_one_hot resolved to argument position k.
  Status choose(const Node& n, std::size_t k) {
    NodeId chosen = target(n.args[k]);
    auto v = value_[static_cast<std::size_t>(chosen)];
    if (v) return replace_by_constant(n, *v);
    if (n.domain) return ok_status();  // keep the node so its domain check stays
    alias_[static_cast<std::size_t>(n.id)] = chosen;
    return ok_status();
  }

  Status replace_by_constant(const Node& n, double v) {
    if (n.domain && !(is_comparison(n.op) && n.domain->lo() <= 0.0 && n.domain->hi() >= 1.0)) {
      if (auto why = n.domain->check(v)) return error(n, "constant " + sem::domain_message(*why, n.domain->to_string()));
    }
    Node& c = out_.nodes[static_cast<std::size_t>(n.id)];
    c.op = Op::Constant;
    c.args.clear();
    c.name.clear();
    c.value = v;
    c.differentiable = false;
    c.clear_linear();
    c.semantics.reset();
    c.surrogate.reset();
    c.temperature.reset();
    value_[static_cast<std::size_t>(n.id)] = v;
    return ok_status();
  }

  // Node `n` with constant arguments as op_semantics.h's kernels read it.
  struct Constants {
    const Folder& f;
    const Node& n;
    double x(std::size_t k) const { return *f.arg(n, k); }
    std::size_t count() const { return n.args.size(); }
    double temperature() const { return 1.0; }  // relaxed nodes are never folded
    static double greater(double x, double y, double t) { return sem::Contract::greater(x, y, t); }
    static double equal(double x, double y, double t) { return sem::Contract::equal(x, y, t); }
    std::size_t terms() const { return n.linear().coefficients.size(); }
    double coef(std::size_t j) const { return f.round(n.linear().coefficients[j]); }
    std::size_t term_arg(std::size_t j) const { return static_cast<std::size_t>(n.linear().indices[j]); }
    bool has_bias() const { return n.linear().bias.has_value(); }
    double bias() const { return f.round(*n.linear().bias); }
    double round(double v) const { return f.round(v); }
  };

  // The checked exact value of an arithmetic, comparison, relu, sigmoid or
  // affine node whose arguments are all constant (op_semantics.h's rule;
  // its errors say "constant").
  Result<double> compute(const Node& n) const {
    double r = 0.0;
    sem::Failure f = sem::value(n.op, true, Constants{*this, n}, r);
    if (!f) f = sem::finish(r, f32_);
    if (f) return error(n, sem::describe_constant(f, num));
    return r;
  }

  const Program& p_;
  const FoldOptions& o_;
  const bool f32_;
  std::vector<bool> live_;
  std::vector<std::optional<double>> value_;
  std::vector<NodeId> alias_;
  std::vector<std::optional<Diagnostic>> errors_;
  Program out_;
};

}  // namespace

Result<Program> fold_constants(const Program& program, const FoldOptions& options) {
  if (Status s = passes::validate_input(program, "constant folding"); !s) return s.error();
  return Folder(program, options).run();
}

}  // namespace tc
