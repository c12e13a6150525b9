#include "passes/analyze.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cfloat>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>

#include "ir/policy.h"
#include "passes/pass_util.h"

namespace tc {

namespace {

constexpr double kEps = 0x1p-52;

Interval from_domain(const Domain& d) {
  Interval out = Interval::of(d.lo(), d.hi(), d.is_integral());
  // A float32 input is a binary32 value: round the ends outward to binary32
  // so the interval holds whether or not the evaluator rounds the input.
  if (d.type == DomainType::Float32) out = ival::hull(out, ival::round_f32(out));
  return out;
}

bool inside_domain(const Interval& v, const Domain& d) {
  if (!v.within(d.lo(), d.hi())) return false;
  if (d.is_integral() && !v.integral) return false;
  return true;
}

Interval meet_domain(Interval v, const Domain& d) {
  Interval out{std::max(v.lo, d.lo()), std::min(v.hi, d.hi()), v.integral || d.is_integral()};
  if (out.lo > out.hi) out = Interval::of(d.lo(), d.hi(), d.is_integral());  // never passes the check
  return ival::tighten(out);
}

double max_abs(const Interval& v) { return std::max(std::fabs(v.lo), std::fabs(v.hi)); }

// Widens by an absolute amount (for relaxed forms computed in an order we do
// not reproduce step by step).
Interval widen_abs(Interval v, double amount) {
  v.lo -= amount;
  v.hi += amount;
  return ival::widen(v, 1);
}

class Analyzer {
 public:
  Analyzer(const Program& p, const AnalyzeOptions& o) : p_(p), o_(o) {
    const RootSettings settings = resolve(Policy{.semantics = o.semantics, .dtype = o.dtype}, p);
    root_ = settings.semantics;
    f32_ = settings.dtype == Dtype::Float32;
    sink_ = &out_.warnings;
  }

  Result<Analysis> run() {
    for (const auto& [name, _] : o_.params)
      if (!p_.find_named(Op::Parameter, name)) return make_error("analyze: the program has no parameter '" + name + "'");
    out_.intervals.resize(p_.nodes.size());
    for (const Node& n : p_.nodes) out_.intervals[static_cast<std::size_t>(n.id)] = visit(n);
    if (refine_guarded_branches()) {
      // Second forward sweep: every node outside a guarded branch is
      // recomputed from the refined values (selects take their branch values
      // under their own conditions); the branch nodes keep their refinement.
      std::erase_if(out_.warnings, [&](const AnalysisWarning& w) { return !member_[static_cast<std::size_t>(w.node)]; });
      for (const Node& n : p_.nodes) {
        const std::size_t i = static_cast<std::size_t>(n.id);
        if (member_[i]) continue;
        const Interval v = visit(n);
        const Interval& old = out_.intervals[i];
        Interval both{std::max(v.lo, old.lo), std::min(v.hi, old.hi), v.integral || old.integral};
        out_.intervals[i] = both.lo <= both.hi ? both : v;
      }
    }
    for (const auto& [state, next] : p_.updates) {
      const Node& s = p_.nodes[static_cast<std::size_t>(state)];
      if (!inside_domain(at(next), *s.domain))
        warn(state, std::string(kWarnStateDomain) + " " + s.domain->to_string() + " (state '" + s.name +
                        "', next value " + describe_node(p_, next) + ")");
    }
    // Warnings only for nodes that can run: not dead, and not in a select
    // branch that the condition's interval rules out.
    const std::vector<bool> runs = passes::live_nodes_lazy(p_, [&](const Node& select) -> std::optional<bool> {
      const Interval& c = at(select.args[0]);
      if (!c.contains_zero()) return true;
      if (c.lo == 0.0 && c.hi == 0.0) return false;
      return std::nullopt;
    });
    std::erase_if(out_.warnings, [&](const AnalysisWarning& w) { return !runs[static_cast<std::size_t>(w.node)]; });
    std::stable_sort(out_.warnings.begin(), out_.warnings.end(),
                     [](const AnalysisWarning& a, const AnalysisWarning& b) { return a.node < b.node; });
    return std::move(out_);
  }

 private:
  const Interval& at(NodeId id) const {
    if (ctx_) {
      auto it = ctx_->find(id);
      if (it != ctx_->end()) return it->second;
    }
    return out_.intervals[static_cast<std::size_t>(id)];
  }
  const Interval& arg(const Node& n, std::size_t k) const { return at(n.args[k]); }

  void warn(NodeId id, std::string message) { sink_->push_back({id, std::move(message)}); }

  Semantics semantics_of(const Node& n) const { return n.semantics.value_or(root_); }

  Interval round(Interval v) const { return ival::tighten(f32_ ? ival::round_f32(v) : v); }

  Interval visit(const Node& n) {
    const bool relaxed = semantics_of(n) == Semantics::Relaxed;
    bool divisor_warned = false;
    Interval v = compute(n, relaxed, divisor_warned);
    if (n.op == Op::Raise) {  // no value (an empty interval), only its failure
      warn(n.id, std::string(kWarnRaise) + " " + n.name);
      return v;
    }
    v = round(v);
    const bool args_bounded = std::all_of(n.args.begin(), n.args.end(), [&](NodeId a) { return at(a).bounded(); });
    if (!is_leaf(n.op) && n.op != Op::Call && !v.bounded() && args_bounded && !divisor_warned)
      warn(n.id, std::string(kWarnOverflow));
    // The evaluator checks the domains of exact computing nodes only; a leaf's
    // domain (input, state: by definition; constant, parameter: unchecked)
    // must not narrow what it can produce.
    if (n.domain && !relaxed && !is_leaf(n.op)) {
      // Values that pass the run-time check are inside the domain.
      if (!inside_domain(v, *n.domain))
        warn(n.id, std::string(kWarnNodeDomain) + " " + n.domain->to_string());
      v = meet_domain(v, *n.domain);
    }
    return v;
  }

  Interval compute(const Node& n, bool relaxed, bool& divisor_warned) {
    switch (n.op) {
      case Op::Input:
        return from_domain(*n.domain);
      case Op::State:
        return from_domain(*n.domain);
      case Op::Parameter: {
        if (o_.free_parameters) return Interval::everything();
        auto it = o_.params.find(n.name);
        return Interval::point(it != o_.params.end() ? it->second : n.value);
      }
      case Op::Constant:
        return Interval::point(n.value);
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Neg:
        return transfer(n);
      case Op::Div:
      case Op::FloorDiv:
      case Op::Mod: {
        if (arg(n, 1).contains_zero() && !(nonzero_ && nonzero_->count(n.args[1]))) {
          warn(n.id, std::string(kWarnDivisionByZero));
          divisor_warned = true;
        }
        return transfer(n);
      }
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        // Relaxed comparisons are sigmoids / Gaussians: continuous values in [0, 1].
        if (relaxed) return Interval::unit(false);
        return transfer(n);
      case Op::Select: {
        const Interval& c = arg(n, 0);
        Interval yes = arg(n, 1);
        Interval no = arg(n, 2);
        if (!relaxed) {
          // A branch's value under its own condition, from the guard refinement.
          auto it = branch_value_.find(n.id);
          if (it != branch_value_.end()) {
            auto meet = [](Interval a, const std::optional<Interval>& b) {
              if (!b) return a;
              Interval m{std::max(a.lo, b->lo), std::min(a.hi, b->hi), a.integral || b->integral};
              return m.lo <= m.hi ? m : a;
            };
            yes = meet(yes, it->second[0]);
            no = meet(no, it->second[1]);
          }
        }
        if (relaxed) {
          // c*a + (1-c)*b, step by step as the evaluator computes it.
          Interval one = Interval::point(1.0);
          return ival::add(ival::mul(c, yes), ival::mul(ival::sub(one, c), no));
        }
        return ival::select(c, yes, no);
      }
      case Op::Gather: return gather(n, relaxed);
      case Op::GatherOneHot: return gather_one_hot(n, relaxed);
      case Op::Affine:
      case Op::SparseAffine: return affine(n);
      case Op::Call: return Interval::everything();
      default:
        return transfer(n);  // relu, sigmoid, ...: the table's transfer function, ival::apply
    }
    return Interval::everything();
  }

  Interval gather(const Node& n, bool relaxed) {
    const Interval& index = arg(n, 0);
    const std::size_t count = n.args.size() - 1;
    if (relaxed) {
      // Normalised weights make a convex combination of the values; allow
      // the rounding of a sum of `count` products.
      Interval h = arg(n, 1);
      for (std::size_t k = 1; k < count; ++k) h = ival::hull(h, arg(n, k + 1));
      h.integral = false;
      return widen_abs(h, 4.0 * static_cast<double>(count + 2) * kEps * max_abs(h));
    }
    if (!index.within(0.0, static_cast<double>(count) - 1.0)) warn(n.id, std::string(kWarnIndexRange));
    const bool integer_index = index.integral || (index.is_point() && std::floor(index.lo) == index.lo);
    if (!integer_index) warn(n.id, std::string(kWarnIndexInteger));
    return transfer(n);
  }

  // The op's exact transfer function from the shared table (ival::apply).
  Interval transfer(const Node& n) const {
    std::vector<Interval> args;
    args.reserve(n.args.size());
    for (std::size_t k = 0; k < n.args.size(); ++k) args.push_back(arg(n, k));
    auto out = ival::apply(n.op, args);
    TC_ASSERT(out.has_value());
    return *out;
  }

  // Exactly one selector is 1 when they are all decided that way, or when
  // they are eq(i, 0) ... eq(i, n-1) over one integer i in [0, n-1].
  bool proven_one_hot(const Node& n, std::size_t count) const {
    int ones = 0;
    bool decided = true;
    for (std::size_t k = 0; k < count; ++k) {
      const Interval& s = arg(n, k);
      if (s.is_point() && s.lo == 1.0) ++ones;
      else if (!(s.is_point() && s.lo == 0.0)) decided = false;
    }
    if (decided) return ones == 1;
    std::optional<NodeId> index;
    std::set<double> keys;
    for (std::size_t k = 0; k < count; ++k) {
      const Node& s = p_.nodes[static_cast<std::size_t>(n.args[k])];
      if (s.op != Op::Eq || semantics_of(s) == Semantics::Relaxed) return false;
      NodeId a = s.args[0], b = s.args[1];
      if (p_.nodes[static_cast<std::size_t>(a)].op == Op::Constant) std::swap(a, b);
      const Node& key = p_.nodes[static_cast<std::size_t>(b)];
      if (key.op != Op::Constant) return false;
      if (index && *index != a) return false;
      index = a;
      keys.insert(at(b).lo);
    }
    if (!index || keys.size() != count) return false;
    const Interval& i = at(*index);
    if (!i.integral || !i.bounded() || i.hi - i.lo + 1.0 > static_cast<double>(count)) return false;
    for (double k = i.lo; k <= i.hi; ++k)
      if (!keys.count(k)) return false;
    return true;
  }

  Interval gather_one_hot(const Node& n, bool relaxed) {
    const std::size_t count = n.args.size() / 2;
    if (relaxed) {
      // The weighted sum s0*v0 + s1*v1 + ...
      Interval acc = ival::mul(arg(n, 0), arg(n, count));
      double magnitude = max_abs(acc);
      for (std::size_t k = 1; k < count; ++k) {
        Interval term = ival::mul(arg(n, k), arg(n, count + k));
        magnitude += max_abs(term);
        acc = ival::add(acc, term);
      }
      acc.integral = false;
      return widen_abs(acc, 2.0 * static_cast<double>(count + 1) * kEps * magnitude);
    }
    if (!proven_one_hot(n, count)) warn(n.id, std::string(kWarnOneHot));
    std::optional<Interval> out;
    for (std::size_t k = 0; k < count; ++k) {
      if (!arg(n, k).contains(1.0)) continue;
      const Interval& v = arg(n, count + k);
      out = out ? ival::hull(*out, v) : v;
    }
    return out.value_or(Interval::everything());
  }

  Interval affine(const Node& n) {
    // acc = c0*x0, acc = acc + ci*xi, acc + bias: one rounding point each.
    const LinearTerms& lin = n.linear();
    auto term = [&](std::size_t j) {
      std::size_t pos = n.op == Op::SparseAffine ? static_cast<std::size_t>(lin.indices[j]) : j;
      return round(ival::mul(round(Interval::point(lin.coefficients[j])), at(n.args[pos])));
    };
    Interval acc = term(0);
    for (std::size_t j = 1; j < lin.coefficients.size(); ++j) acc = round(ival::add(acc, term(j)));
    if (lin.bias) acc = ival::add(acc, round(Interval::point(*lin.bias)));
    return acc;
  }

  // ---- Guards -------------------------------------------------------------
  // An exact (or hybrid) select computes only the branch its condition picks,
  // so the nodes that run only for that branch may assume the condition:
  // `0.0 if b == 0 else x / b` divides by a nonzero b. For each such branch,
  // the facts the condition implies (narrower intervals, nonzero operands)
  // are collected, the nodes used by nothing but that branch are recomputed
  // under them, and their intervals and warnings replaced (both stay sound:
  // those nodes never run otherwise). Selects are visited outermost first,
  // so nested guards accumulate. The work is capped so huge programs stay
  // linear; past the cap the plain intervals remain.

  struct Facts {
    std::map<NodeId, Interval> narrowed;
    std::set<NodeId> nonzero;
  };

  void narrow(Facts& f, NodeId v, Interval to) const {
    auto it = f.narrowed.find(v);
    Interval cur = it != f.narrowed.end() ? it->second : at(v);
    Interval out{std::max(cur.lo, to.lo), std::min(cur.hi, to.hi), cur.integral || to.integral};
    out = ival::tighten(out);
    if (out.lo > out.hi) return;  // contradiction: the branch never runs; keep what we had
    f.narrowed[v] = out;
    if (!out.contains_zero()) f.nonzero.insert(v);
  }

  static bool boolean_like(const Interval& v) { return v.integral && v.within(0.0, 1.0); }

  // What `cond` being non-zero (truth) or zero (!truth) implies.
  void learn(NodeId cond, bool truth, Facts& f, int depth) const {
    if (depth > 8) return;
    const Node& c = p_.nodes[static_cast<std::size_t>(cond)];
    if (semantics_of(c) == Semantics::Relaxed) return;
    if (truth) f.nonzero.insert(cond);
    if (c.op == Op::Select) {
      // `a and b` lowers to select(a, b, a) or select(a, b, 0); `a or b` to
      // select(a, a, b) or select(a, 1, b). The select's value is y when the
      // condition is non-zero and n otherwise.
      const NodeId cond_of = c.args[0], y = c.args[1], n = c.args[2];
      auto is_zero = [&](NodeId id) { return at(id).is_point() && at(id).lo == 0.0; };
      auto is_nonzero = [&](NodeId id) { return !at(id).contains_zero(); };
      if (truth) {
        if (n == cond_of || is_zero(n)) {  // n cannot be the non-zero result
          learn(cond_of, true, f, depth + 1);
          learn(y, true, f, depth + 1);
        } else if (is_zero(y)) {
          learn(cond_of, false, f, depth + 1);
          learn(n, true, f, depth + 1);
        }
      } else {
        if (y == cond_of || is_nonzero(y)) {  // y cannot be the zero result
          learn(cond_of, false, f, depth + 1);
          learn(n, false, f, depth + 1);
        } else if (is_nonzero(n)) {
          learn(cond_of, true, f, depth + 1);
          learn(y, false, f, depth + 1);
        }
      }
      return;
    }
    if (!is_comparison(c.op)) return;
    const NodeId l = c.args[0], r = c.args[1];
    Op op = c.op;
    if (!truth) {
      // not (l < r) is l >= r, and so on.
      switch (op) {
        case Op::Lt: op = Op::Ge; break;
        case Op::Le: op = Op::Gt; break;
        case Op::Gt: op = Op::Le; break;
        case Op::Ge: op = Op::Lt; break;
        case Op::Eq: op = Op::Ne; break;
        case Op::Ne: op = Op::Eq; break;
        default:
          break;  // not a comparison
      }
    }
    constexpr double inf = std::numeric_limits<double>::infinity();
    auto now = [&](NodeId id) {
      auto it = f.narrowed.find(id);
      return it != f.narrowed.end() ? it->second : at(id);
    };
    // Strict bounds: below(x) is the largest value of `id`'s kind under x.
    auto below = [&](NodeId id, double x) { return now(id).integral ? std::ceil(x) - 1.0 : std::nextafter(x, -inf); };
    auto above = [&](NodeId id, double x) { return now(id).integral ? std::floor(x) + 1.0 : std::nextafter(x, inf); };
    const Interval L = now(l), R = now(r);
    switch (op) {
      case Op::Lt:  // l < r
        narrow(f, l, {-inf, below(l, R.hi), false});
        narrow(f, r, {above(r, L.lo), inf, false});
        break;
      case Op::Le:
        narrow(f, l, {-inf, R.hi, false});
        narrow(f, r, {L.lo, inf, false});
        break;
      case Op::Gt:  // l > r
        narrow(f, l, {above(l, R.lo), inf, false});
        narrow(f, r, {-inf, below(r, L.hi), false});
        break;
      case Op::Ge:
        narrow(f, l, {R.lo, inf, false});
        narrow(f, r, {-inf, L.hi, false});
        break;
      case Op::Eq:
        narrow(f, l, {R.lo, R.hi, false});
        narrow(f, r, {L.lo, L.hi, false});
        // eq(c, 0) over a 0/1 wire is "not c"; eq(c, 1) is "c".
        for (auto [wire, key] : {std::pair{l, R}, std::pair{r, L}})
          if (key.is_point() && boolean_like(at(wire)) && (key.lo == 0.0 || key.lo == 1.0))
            learn(wire, key.lo == 1.0, f, depth + 1);
        break;
      case Op::Ne:
        for (auto [wire, key] : {std::pair{l, R}, std::pair{r, L}}) {
          if (!key.is_point()) continue;
          if (key.lo == 0.0) f.nonzero.insert(wire);
          const Interval cur = now(wire);
          if (cur.integral && cur.lo == key.lo) narrow(f, wire, {key.lo + 1.0, inf, false});
          if (cur.integral && cur.hi == key.lo) narrow(f, wire, {-inf, key.lo - 1.0, false});
          if (boolean_like(at(wire)) && (key.lo == 0.0 || key.lo == 1.0)) learn(wire, key.lo == 0.0, f, depth + 1);
        }
        break;
      default:
        break;  // not a comparison
    }
  }

  // Nodes that run only as argument `slot` of `select`, ascending.
  std::vector<NodeId> exclusive_to(const Node& select, std::size_t slot, std::size_t& budget) {
    std::vector<NodeId> members;
    const NodeId start = select.args[slot];
    for (std::size_t k = 0; k < select.args.size(); ++k)
      if (k != slot && select.args[k] == start) return members;  // also the condition or the other branch
    std::priority_queue<NodeId> queue;
    queue.push(start);
    refs_[static_cast<std::size_t>(start)] += 1;
    touched_.push_back(start);
    NodeId last = -1;
    while (!queue.empty() && budget > 0) {
      const NodeId id = queue.top();
      queue.pop();
      if (id == last) continue;  // duplicates pop together (max-heap)
      last = id;
      --budget;
      ++out_.refinement_work;
      const std::size_t i = static_cast<std::size_t>(id);
      if (refs_[i] != uses_[i] || is_leaf(p_.nodes[i].op)) continue;
      members.push_back(id);
      for (NodeId a : p_.nodes[i].args) {
        if (refs_[static_cast<std::size_t>(a)]++ == 0) touched_.push_back(a);
        queue.push(a);
      }
    }
    for (NodeId t : touched_) refs_[static_cast<std::size_t>(t)] = 0;
    touched_.clear();
    if (budget == 0) members.clear();  // incomplete: do not trust it
    std::reverse(members.begin(), members.end());
    return members;
  }

  bool refine_guarded_branches() {
    bool refined = false;
    member_.assign(p_.nodes.size(), 0);
    uses_ = passes::use_counts(p_);
    refs_.assign(p_.nodes.size(), 0);
    fact_of_.assign(p_.nodes.size(), -1);
    std::size_t budget = refinement_budget(p_.nodes.size());
    for (std::size_t i = p_.nodes.size(); i-- > 0 && budget > 0;) {
      const Node& sel = p_.nodes[i];
      if (sel.op != Op::Select || semantics_of(sel) == Semantics::Relaxed) continue;
      for (std::size_t slot : {std::size_t(1), std::size_t(2)}) {
        // A select inside a guarded branch inherits that branch's facts.
        const int outer = fact_of_[i];
        Facts facts;
        // Deeply nested guards would copy ever larger fact sets: past a small
        // size start afresh (fewer facts is still sound).
        if (outer >= 0 && fact_pool_[static_cast<std::size_t>(outer)].narrowed.size() +
                                  fact_pool_[static_cast<std::size_t>(outer)].nonzero.size() <= 64) {
          facts = fact_pool_[static_cast<std::size_t>(outer)];
          out_.refinement_work += facts.narrowed.size() + facts.nonzero.size();
        }
        const std::size_t inherited = facts.narrowed.size() + facts.nonzero.size();
        learn(sel.args[0], slot == 1, facts, 0);
        if (facts.narrowed.size() + facts.nonzero.size() == inherited) continue;
        const std::vector<NodeId> members = exclusive_to(sel, slot, budget);
        std::map<NodeId, Interval> ctx = facts.narrowed;
        if (members.empty()) {
          // The branch value itself may still be narrowed (`a if a >= 0 else ...`).
          auto it = ctx.find(sel.args[slot]);
          if (it != ctx.end()) {
            branch_value_[sel.id][slot - 1] = it->second;
            refined = true;
          }
          continue;
        }
        refined = true;
        std::vector<AnalysisWarning> local;
        ctx_ = &ctx;
        nonzero_ = &facts.nonzero;
        sink_ = &local;
        out_.refinement_work += members.size();
        for (NodeId m : members) {
          Interval v = visit(p_.nodes[static_cast<std::size_t>(m)]);
          const Interval& old = out_.intervals[static_cast<std::size_t>(m)];
          // Both are sound for the runs of m; keep their intersection.
          Interval both{std::max(v.lo, old.lo), std::min(v.hi, old.hi), v.integral || old.integral};
          ctx[m] = both.lo <= both.hi ? both : old;
        }
        ctx_ = nullptr;
        nonzero_ = nullptr;
        sink_ = &out_.warnings;
        std::set<NodeId> in_branch(members.begin(), members.end());
        std::erase_if(out_.warnings, [&](const AnalysisWarning& w) { return in_branch.count(w.node) > 0; });
        out_.warnings.insert(out_.warnings.end(), local.begin(), local.end());
        for (NodeId m : members) {
          out_.intervals[static_cast<std::size_t>(m)] = ctx[m];
          member_[static_cast<std::size_t>(m)] = 1;
        }
        branch_value_[sel.id][slot - 1] = ctx.at(sel.args[slot]);
        fact_pool_.push_back(std::move(facts));
        for (NodeId m : members) fact_of_[static_cast<std::size_t>(m)] = static_cast<int>(fact_pool_.size() - 1);
      }
    }
    return refined;
  }

  const std::map<NodeId, Interval>* ctx_ = nullptr;
  const std::set<NodeId>* nonzero_ = nullptr;
  std::vector<AnalysisWarning>* sink_ = nullptr;
  std::vector<int> uses_;
  std::vector<int> refs_;
  std::vector<NodeId> touched_;
  std::vector<std::uint8_t> member_;  ///< per node: refined inside a guarded branch
  /// Per select: the value of its yes / no argument when that branch is taken.
  std::map<NodeId, std::array<std::optional<Interval>, 2>> branch_value_;
  std::vector<int> fact_of_;        ///< per node: index into fact_pool_ of its innermost guard, or -1
  std::vector<Facts> fact_pool_;

  const Program& p_;
  const AnalyzeOptions& o_;
  Semantics root_ = Semantics::Exact;
  bool f32_ = false;
  Analysis out_;
};

}  // namespace

Interval Analysis::output(const Program& program, std::string_view name) const {
  auto id = program.output(name);
  if (!id || static_cast<std::size_t>(*id) >= intervals.size()) return Interval::everything();
  return intervals[static_cast<std::size_t>(*id)];
}

Result<Analysis> analyze(const Program& program, const AnalyzeOptions& options) {
  if (Status s = passes::validate_input(program, "analyze"); !s) return s.error();
  return Analyzer(program, options).run();
}

}  // namespace tc
