#include "passes/analyze.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>

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

ival::Cmp cmp_of(Op op) {
  switch (op) {
    case Op::Lt: return ival::Cmp::Lt;
    case Op::Le: return ival::Cmp::Le;
    case Op::Gt: return ival::Cmp::Gt;
    case Op::Ge: return ival::Cmp::Ge;
    case Op::Eq: return ival::Cmp::Eq;
    case Op::Ne: return ival::Cmp::Ne;
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::Neg: case Op::FloorDiv: case Op::Mod: case Op::Select:
    case Op::Relu: case Op::Sigmoid: case Op::Gather: case Op::GatherOneHot: case Op::Affine:
    case Op::SparseAffine: case Op::Call:
      break;
  }
  return ival::Cmp::Eq;
}

class Analyzer {
 public:
  Analyzer(const Program& p, const AnalyzeOptions& o) : p_(p), o_(o) {
    root_ = o.semantics.value_or(p.semantics);
    f32_ = o.dtype.value_or(p.dtype) == Dtype::Float32;
  }

  Result<Analysis> run() {
    for (const auto& [name, _] : o_.params)
      if (!p_.find_named(Op::Parameter, name)) return make_error("analyze: the program has no parameter '" + name + "'");
    out_.intervals.resize(p_.nodes.size());
    for (const Node& n : p_.nodes) out_.intervals[static_cast<std::size_t>(n.id)] = visit(n);
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
  const Interval& at(NodeId id) const { return out_.intervals[static_cast<std::size_t>(id)]; }
  const Interval& arg(const Node& n, std::size_t k) const { return at(n.args[k]); }

  void warn(NodeId id, std::string message) { out_.warnings.push_back({id, std::move(message)}); }

  Semantics semantics_of(const Node& n) const { return n.semantics.value_or(root_); }

  Interval round(Interval v) const { return ival::tighten(f32_ ? ival::round_f32(v) : v); }

  Interval visit(const Node& n) {
    const bool relaxed = semantics_of(n) == Semantics::Relaxed;
    bool divisor_warned = false;
    Interval v = compute(n, relaxed, divisor_warned);
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
      case Op::Add: return ival::add(arg(n, 0), arg(n, 1));
      case Op::Sub: return ival::sub(arg(n, 0), arg(n, 1));
      case Op::Mul: return ival::mul(arg(n, 0), arg(n, 1));
      case Op::Neg: return ival::neg(arg(n, 0));
      case Op::Div:
      case Op::FloorDiv:
      case Op::Mod: {
        if (arg(n, 1).contains_zero()) {
          warn(n.id, std::string(kWarnDivisionByZero));
          divisor_warned = true;
        }
        if (n.op == Op::Div) return ival::div(arg(n, 0), arg(n, 1));
        if (n.op == Op::FloorDiv) return ival::floordiv(arg(n, 0), arg(n, 1));
        return ival::mod(arg(n, 0), arg(n, 1));
      }
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        // Relaxed comparisons are sigmoids / Gaussians: continuous values in [0, 1].
        if (relaxed) return Interval::unit(false);
        return ival::compare(cmp_of(n.op), arg(n, 0), arg(n, 1));
      case Op::Select: {
        const Interval& c = arg(n, 0);
        const Interval& yes = arg(n, 1);
        const Interval& no = arg(n, 2);
        if (relaxed) {
          // c*a + (1-c)*b, step by step as the evaluator computes it.
          Interval one = Interval::point(1.0);
          return ival::add(ival::mul(c, yes), ival::mul(ival::sub(one, c), no));
        }
        if (!c.contains_zero()) return yes;
        if (c.lo == 0.0 && c.hi == 0.0) return no;
        return ival::hull(yes, no);
      }
      case Op::Relu: return ival::relu(arg(n, 0));
      case Op::Sigmoid: return ival::sigmoid(arg(n, 0));
      case Op::Gather: return gather(n, relaxed);
      case Op::GatherOneHot: return gather_one_hot(n, relaxed);
      case Op::Affine:
      case Op::SparseAffine: return affine(n);
      case Op::Call: return Interval::everything();
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
    const double first = std::max(0.0, std::ceil(index.lo));
    const double last = std::min(static_cast<double>(count) - 1.0, std::floor(index.hi));
    if (!(first <= last)) return Interval::everything();  // no valid index: the node always fails
    Interval out = arg(n, static_cast<std::size_t>(first) + 1);
    for (double k = first + 1; k <= last; ++k) out = ival::hull(out, arg(n, static_cast<std::size_t>(k) + 1));
    return out;
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
    auto term = [&](std::size_t j) {
      std::size_t pos = n.op == Op::SparseAffine ? static_cast<std::size_t>(n.indices[j]) : j;
      return round(ival::mul(round(Interval::point(n.coefficients[j])), at(n.args[pos])));
    };
    Interval acc = term(0);
    for (std::size_t j = 1; j < n.coefficients.size(); ++j) acc = round(ival::add(acc, term(j)));
    if (n.bias) acc = ival::add(acc, round(Interval::point(*n.bias)));
    return acc;
  }

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
