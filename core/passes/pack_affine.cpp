#include "passes/pack_affine.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "passes/pass_util.h"

namespace tc {

namespace {

struct Term {
  double coef = 1.0;
  NodeId var = 0;
};

struct Chain {
  std::vector<Term> terms;
  std::optional<double> bias;
  std::vector<NodeId> absorbed;
  int products = 0;  ///< multiplications by a constant folded into coefficients
};

class Packer {
 public:
  Packer(const Program& p, const PackOptions& o) : p_(p), o_(o), f32_(p.dtype == Dtype::Float32) {}

  Result<Program> run() {
    uses_ = passes::use_counts(p_);
    absorbed_.assign(p_.nodes.size(), false);
    out_ = p_;
    for (std::size_t i = p_.nodes.size(); i-- > 0;) {
      const Node& root = p_.nodes[i];
      if (absorbed_[i] || (root.op != Op::Add && root.op != Op::Sub)) continue;
      if (p_.semantics_of(root) == Semantics::Relaxed) continue;
      Chain chain = expand(root);
      if (chain.products == 0 || chain.terms.size() + (chain.bias ? 1 : 0) < 2) {
        // A chain inside this one has a subset of its terms, so it cannot
        // qualify either: skip its nodes as roots (keeps long plain sums linear).
        for (NodeId a : chain.absorbed) absorbed_[static_cast<std::size_t>(a)] = true;
        continue;
      }
      for (NodeId a : chain.absorbed) absorbed_[static_cast<std::size_t>(a)] = true;
      emit(root, chain);
    }
    if (Status s = passes::validate_output(out_, "affine packing"); !s) return s.error();
    return std::move(out_);
  }

 private:
  const Node& node(NodeId id) const { return p_.nodes[static_cast<std::size_t>(id)]; }
  bool is_constant(NodeId id) const { return node(id).op == Op::Constant; }
  double constant_value(NodeId id) const { return f32_ ? round_f32(node(id).value) : node(id).value; }

  // An interior node can disappear into the root's chain: its only use is the
  // chain, its result is checked by nothing (no domain), and it follows the
  // same forward semantics and policy as the root.
  bool absorbable(NodeId id, const Node& root) const {
    const Node& n = node(id);
    return uses_[static_cast<std::size_t>(id)] == 1 && !n.domain && p_.semantics_of(n) != Semantics::Relaxed &&
           passes::same_policy(n, root) && !absorbed_[static_cast<std::size_t>(id)];
  }
  bool is_sum(NodeId id, const Node& root) const {
    const Op op = node(id).op;
    return (op == Op::Add || op == Op::Sub || (op == Op::Affine && !node(id).linear().bias)) && absorbable(id, root);
  }

  // One addend: a run of negations around a multiplication by a constant, or
  // anything else with coefficient +-1.
  Term term(NodeId id, const Node& root, Chain& chain) const {
    double sign = 1.0;
    while (node(id).op == Op::Neg && absorbable(id, root)) {
      chain.absorbed.push_back(id);
      sign = -sign;
      id = node(id).args[0];
    }
    const Node& n = node(id);
    if (n.op == Op::Mul && absorbable(id, root)) {
      // c*x == x*c exactly; with two constants either may be the coefficient.
      int k = is_constant(n.args[1]) ? 1 : is_constant(n.args[0]) ? 0 : -1;
      if (k >= 0) {
        chain.absorbed.push_back(id);
        ++chain.products;
        return {sign * constant_value(n.args[static_cast<std::size_t>(k)]), n.args[static_cast<std::size_t>(1 - k)]};
      }
    }
    return {sign, id};
  }

  Chain expand(const Node& root) const {
    Chain chain;
    // Walk down the left spine iteratively (chains can be very long),
    // collecting the right operands; they are added in reverse order.
    std::vector<std::pair<NodeId, bool>> rights;  // (operand, subtracted)
    std::vector<Term> spine_affine;                // terms of an absorbed affine at the bottom
    NodeId cur = root.id;
    while (true) {
      const Node& n = node(cur);
      const bool inside = cur == root.id || absorbable(cur, root);
      if (inside && (n.op == Op::Add || n.op == Op::Sub)) {
        NodeId a = n.args[0], b = n.args[1];
        // a + b == b + a: put the sum on the left and a constant on the right.
        if (n.op == Op::Add && !is_sum(a, root) && (is_sum(b, root) || (is_constant(a) && !is_constant(b))))
          std::swap(a, b);
        rights.emplace_back(b, n.op == Op::Sub);
        if (cur != root.id) chain.absorbed.push_back(cur);
        cur = a;
        continue;
      }
      if (cur != root.id && n.op == Op::Affine && !n.linear().bias && absorbable(cur, root)) {
        // An affine without bias is the same accumulation: continue it.
        chain.absorbed.push_back(cur);
        ++chain.products;
        for (std::size_t j = 0; j < n.args.size(); ++j) spine_affine.push_back({n.linear().coefficients[j], n.args[j]});
        break;
      }
      spine_affine.push_back(term(cur, root, chain));
      break;
    }
    chain.terms = std::move(spine_affine);
    for (std::size_t k = rights.size(); k-- > 0;) {
      Term t = term(rights[k].first, root, chain);
      if (rights[k].second) t.coef = -t.coef;  // a - t == a + (-t), and -(c*x) == (-c)*x
      chain.terms.push_back(t);
    }
    // acc + b (or acc - b) at the very end is affine's bias.
    if (chain.terms.size() >= 2) {
      const Term& last = chain.terms.back();
      if (is_constant(last.var) && std::fabs(last.coef) == 1.0) {
        chain.bias = last.coef * constant_value(last.var);
        chain.terms.pop_back();
      }
    }
    return chain;
  }

  // Dropping a term whose coefficient is zero changes at most the sign of a
  // zero result (a kept -0 + +0 is +0), and only when every remaining addend
  // is -0. A bias that is not -0 rules that out.
  bool can_drop_zero_terms(const Chain& chain) const {
    return chain.bias && !(*chain.bias == 0.0 && std::signbit(*chain.bias));
  }

  void emit(const Node& root, const Chain& chain) {
    Node& n = out_.nodes[static_cast<std::size_t>(root.id)];
    n.args.clear();
    n.clear_linear();
    n.name.clear();
    n.value = 0.0;
    n.edit_linear().bias = chain.bias;
    std::size_t nonzero = 0;
    for (const Term& t : chain.terms) nonzero += t.coef != 0.0 ? 1 : 0;
    const bool sparse = o_.sparse && chain.terms.size() >= o_.sparse_min_terms && nonzero >= 1 &&
                        2 * nonzero <= chain.terms.size() && can_drop_zero_terms(chain);
    n.op = sparse ? Op::SparseAffine : Op::Affine;
    for (std::size_t j = 0; j < chain.terms.size(); ++j) {
      const Term& t = chain.terms[j];
      // Every variable stays an argument, so its own checks still run.
      n.args.push_back(t.var);
      if (sparse && t.coef == 0.0) continue;
      n.edit_linear().coefficients.push_back(t.coef);
      if (sparse) n.edit_linear().indices.push_back(static_cast<std::int32_t>(j));
    }
  }

  const Program& p_;
  const PackOptions& o_;
  const bool f32_;
  std::vector<int> uses_;
  std::vector<bool> absorbed_;
  Program out_;
};

}  // namespace

Result<Program> pack_affine(const Program& program, const PackOptions& options) {
  if (Status s = passes::validate_input(program, "affine packing"); !s) return s.error();
  return Packer(program, options).run();
}

}  // namespace tc
