#include "passes_util.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ir/builder.h"

namespace tc::testing {

namespace {

int pick(std::mt19937_64& rng, int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
bool chance(std::mt19937_64& rng, double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < p; }

constexpr double kConstants[] = {0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, -1.5, 0.1, 7.0, -3.0, 0.25, 10.0, 1e-3};

class Generator {
 public:
  Generator(std::mt19937_64& rng, const RandomProgramOptions& o) : rng_(rng), o_(o) {}

  Program make() {
    Semantics sem = Semantics::Exact;
    const int s = pick(rng_, 20);
    if (s >= 14 && s < 17) sem = Semantics::Hybrid;
    if (s >= 17 && o_.allow_relaxed) sem = Semantics::Relaxed;
    Dtype dtype = o_.allow_float32 && chance(rng_, 0.25) ? Dtype::Float32 : Dtype::Float64;
    Builder b(sem, Surrogate::Sigmoid, chance(rng_, 0.5) ? 1.0 : 0.5, dtype);
    b_ = &b;
    const int ninputs = 1 + pick(rng_, 4);
    for (int k = 0; k < ninputs; ++k) {
      const std::string name = "x" + std::to_string(k);
      switch (pick(rng_, 5)) {
        case 0: case 1: {
          int lo = -pick(rng_, 9), hi = pick(rng_, 9);
          Value v = b.input(name, Domain::int32(lo, hi));
          pool_.push_back(v);
          ints_.push_back(v);
          break;
        }
        case 2: {
          Value v = b.input(name, Domain::boolean());
          pool_.push_back(v);
          ints_.push_back(v);
          break;
        }
        case 3:
          pool_.push_back(b.input(name, Domain::float64(-4.0, 4.0)));
          break;
        case 4:
          pool_.push_back(b.input(name, Domain::float32(-2.0, 2.0)));
          break;
      }
    }
    if (ints_.empty()) {
      // Indices and floor division need an integer-valued wire.
      Value v = b.input("k", Domain::int32(-2, 6));
      pool_.push_back(v);
      ints_.push_back(v);
    }
    if (chance(rng_, 0.3)) pool_.push_back(b.parameter("w", 0.75));
    std::optional<Value> state;
    if (o_.allow_state && chance(rng_, 0.3)) {
      state = b.state("s", 0.0, Domain::int32(-50, 50));
      pool_.push_back(*state);
      ints_.push_back(*state);
    }
    const int nops = o_.min_ops + pick(rng_, o_.max_ops - o_.min_ops + 1);
    for (int k = 0; k < nops; ++k) step();
    std::vector<std::pair<std::string, Arg>> outs{{"result", pool_.back()}};
    if (chance(rng_, 0.4)) outs.emplace_back("aux", pool_[static_cast<std::size_t>(pick(rng_, static_cast<int>(pool_.size())))]);
    if (state) b.update(*state, ints_.back());
    auto p = b.build(outs);
    TC_ASSERT(p.ok());
    return std::move(*p);
  }

 private:
  Value any() { return pool_[static_cast<std::size_t>(pick(rng_, static_cast<int>(pool_.size())))]; }
  // Recent values more often, so programs grow deep rather than wide.
  Value recent() {
    const int n = static_cast<int>(pool_.size());
    return pool_[static_cast<std::size_t>(std::max(0, n - 1 - pick(rng_, std::min(n, 4))))];
  }
  Value any_int() { return ints_[static_cast<std::size_t>(pick(rng_, static_cast<int>(ints_.size())))]; }
  double constant() { return kConstants[pick(rng_, static_cast<int>(std::size(kConstants)))]; }
  Arg operand() { return chance(rng_, 0.25) ? Arg(constant()) : Arg(chance(rng_, 0.5) ? recent() : any()); }
  Value c(double v) { return b_->constant(v); }

  void push(Value v, bool integral = false) {
    // Sometimes a checked domain on a computing node: the packer must stop
    // there, the folder must check it, the analysis may narrow with it.
    const Node& n = b_->peek().nodes[static_cast<std::size_t>(v.id())];
    if (!is_leaf(n.op) && chance(rng_, 0.08))
      b_->set_domain(v, integral ? Domain::int32(-20, 20) : Domain::float64(-50.0, 50.0));
    pool_.push_back(v);
    if (integral) ints_.push_back(v);
  }

  // A condition on v the way the frontend lowers guards: comparisons with
  // constants, `and` as select(a, b, 0) or select(a, b, a), `or` as
  // select(a, 1, b) or select(a, a, b), `not` as eq(c, 0).
  Value condition(Value v, int depth = 0) {
    Builder& b = *b_;
    static constexpr const char* kCmp[] = {"lt", "le", "gt", "ge", "eq", "ne"};
    const int shape = depth > 1 ? 0 : pick(rng_, 6);
    switch (shape) {
      case 1: {
        Value a = condition(v, depth + 1), c = condition(v, depth + 1);
        return chance(rng_, 0.5) ? b.select(a, c, 0) : b.select(a, c, a);
      }
      case 2: {
        Value a = condition(v, depth + 1), c = condition(v, depth + 1);
        return chance(rng_, 0.5) ? b.select(a, 1, c) : b.select(a, a, c);
      }
      case 3: return b.op("eq", condition(v, depth + 1), 0);
      default: {
        const double k = static_cast<double>(pick(rng_, 9) - 4);
        return chance(rng_, 0.5) ? b.op(kCmp[pick(rng_, 6)], v, k) : b.op(kCmp[pick(rng_, 6)], k, v);
      }
    }
  }

  // Work that fails for some inputs (a divisor that may be zero).
  Value may_fail() {
    Builder& b = *b_;
    switch (pick(rng_, 3)) {
      case 0: return any() / any_int();
      case 1: return b.op("floordiv", any_int(), any_int());
      default: return b.op("mod", any(), any_int());
    }
  }

  // select(condition on v, work on v that can fail, other work on v): what
  // the guard refinement narrows; the soundness tests check it stays sound.
  Value guarded() {
    Builder& b = *b_;
    Value v = chance(rng_, 0.6) ? any_int() : any();
    auto work = [&]() -> Value {
      switch (pick(rng_, 5)) {
        case 0: return any() / v;
        case 1: return b.op("floordiv", any_int(), v);
        case 2: return b.gather({1.0, 2.0, 3.0, 4.0}, v);
        case 3: return b.op("mod", v, 3) * 2.0 + v;
        default: return v - 1.0;
      }
    };
    return b.select(condition(v), work(), chance(rng_, 0.5) ? work() : Value(v));
  }

  // A region with its own semantics through include (per-node policy).
  Value region() {
    static constexpr Semantics kSem[] = {Semantics::Exact, Semantics::Hybrid, Semantics::Relaxed};
    Builder inner(kSem[pick(rng_, o_.allow_relaxed ? 3 : 2)], Surrogate::Sigmoid, 0.5, b_->peek().dtype);
    Value a = inner.input("a", Domain::float64(-100, 100));
    Value c = inner.input("c", Domain::float64(-100, 100));
    Value r = inner.select(a > c, 2.0 * a + 0.5 * c - 1.0, 3.0 * c);
    auto prog = inner.build(r);
    TC_ASSERT(prog.ok());
    auto outs = b_->include(*prog, {{"a", any()}, {"c", any()}}, "r" + std::to_string(regions_++));
    return outs.at("result");
  }

  // A multiply-add chain with constant coefficients, in the shapes authors
  // and the frontend write: c*x, x*c, -(c*x), -x, x, constants, a + t,
  // t + a, a - t, and sometimes mostly-zero coefficients and a bias.
  Value chain() {
    const int terms = 2 + pick(rng_, 7);
    const bool sparse = chance(rng_, 0.3);
    auto coef = [&]() { return sparse && chance(rng_, 0.7) ? (chance(rng_, 0.5) ? 0.0 : -0.0) : constant(); };
    auto term = [&]() -> Value {
      Value x = any();
      switch (pick(rng_, 6)) {
        case 0: return c(coef()) * x;
        case 1: return x * c(coef());
        case 2: return -(c(coef()) * x);
        case 3: return -x;
        case 4: return chance(rng_, 0.5) ? x : c(constant());
        default: return c(coef()) * x;
      }
    };
    Value acc = chance(rng_, 0.2) ? c(0.0) + term() : term();
    for (int k = 1; k < terms; ++k) {
      Value t = term();
      switch (pick(rng_, 3)) {
        case 0: acc = acc + t; break;
        case 1: acc = t + acc; break;
        case 2: acc = acc - t; break;
      }
      if (chance(rng_, 0.1)) push(acc);  // an intermediate used elsewhere stays
    }
    if (chance(rng_, 0.5)) acc = chance(rng_, 0.5) ? acc + c(constant()) : acc - c(constant());
    return acc;
  }

  void step() {
    Builder& b = *b_;
    switch (pick(rng_, 21)) {
      case 0: push(b.op("add", operand(), operand())); break;
      case 1: push(b.op("sub", operand(), operand())); break;
      case 2: push(b.op("mul", operand(), operand())); break;
      case 3: push(any() / (chance(rng_, 0.5) ? Arg(any()) : Arg(constant() == 0.0 ? 2.0 : 4.0))); break;
      case 4: {
        Value x = any_int();
        Value d = chance(rng_, 0.5) ? c(static_cast<double>(1 + pick(rng_, 5))) : any_int();
        push(chance(rng_, 0.5) ? b.op("floordiv", x, d) : b.op("mod", x, d), true);
        break;
      }
      case 5: push(-recent()); break;
      case 6: push(b.relu(any())); break;
      case 7: push(b.sigmoid(any())); break;
      case 8: case 9: {
        static constexpr const char* kCmp[] = {"lt", "le", "gt", "ge", "eq", "ne"};
        Value cond = b.op(kCmp[pick(rng_, 6)], operand(), operand());
        push(b.select(cond, operand(), operand()));
        break;
      }
      case 10: {
        const int n = 2 + pick(rng_, 4);
        std::vector<Arg> values;
        for (int k = 0; k < n; ++k) values.push_back(operand());
        Value index = chance(rng_, 0.8) ? b.op("mod", any_int(), c(n)) : any_int();
        if (o_.constant_indices && chance(rng_, 0.5)) {
          // An index the folder decides (c * 0 + k), over values that may fail.
          values[static_cast<std::size_t>(pick(rng_, n))] = Arg(may_fail());
          index = c(constant()) * 0.0 + c(static_cast<double>(pick(rng_, n)));
        }
        push(b.gather(values, index));
        break;
      }
      case 11: {
        const int n = 2 + pick(rng_, 3);
        std::vector<Arg> selectors, values;
        const bool fixed = o_.constant_indices && chance(rng_, 0.5);
        Value which = fixed ? c(static_cast<double>(pick(rng_, n))) : b.op("mod", any_int(), c(n));
        for (Value s : b.one_hot(which, n)) selectors.push_back(s);
        for (int k = 0; k < n; ++k) values.push_back(operand());
        if (fixed) values[static_cast<std::size_t>(pick(rng_, n))] = Arg(may_fail());
        push(b.gather_one_hot(selectors, values));
        break;
      }
      case 12: case 13: case 14: push(chain()); break;
      case 15: {
        // Constant-only subexpressions for the folder, including decisions.
        Value k = c(constant()) * c(constant()) + c(constant());
        if (chance(rng_, 0.5)) k = b.select(c(constant()) < c(constant()), k, any());
        push(operand() + k);
        break;
      }
      case 16: {
        std::vector<Arg> xs{any(), any(), any()};
        push(b.affine(xs, {constant(), constant(), constant()}, chance(rng_, 0.5) ? std::optional<double>(1.5) : std::nullopt));
        break;
      }
      case 17:
        // Unused work, removed by dead-code elimination.
        (void)(any() * c(constant()) + any());
        break;
      case 19: case 20:
        push(guarded());
        break;
      case 18: {
        // A chain continuing across an include boundary (different policy).
        Value r = region();
        push(chance(rng_, 0.5) ? 4.0 * any() + r : r * 0.5 + any());
        break;
      }
    }
  }

  std::mt19937_64& rng_;
  RandomProgramOptions o_;
  Builder* b_ = nullptr;
  std::vector<Value> pool_, ints_;
  int regions_ = 0;
};

double draw(const Domain& d, std::mt19937_64& rng) {
  if (d.is_integral()) {
    auto lo = static_cast<long long>(d.lo()), hi = static_cast<long long>(d.hi());
    return static_cast<double>(std::uniform_int_distribution<long long>(lo, hi)(rng));
  }
  double v = std::uniform_real_distribution<double>(d.lo(), d.hi())(rng);
  if (d.type == DomainType::Float32) v = round_f32(v);
  return std::clamp(v, d.lo(), d.hi());
}

std::vector<double> edges(const Domain& d) {
  std::vector<double> out{d.lo(), d.hi()};
  for (double v : {0.0, 1.0, -1.0, 0.5, -0.5})
    if (!d.check(v)) out.push_back(v);
  if (d.is_floating() && !d.check(-0.0)) out.push_back(-0.0);
  return out;
}

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

}  // namespace

std::string show(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

Program random_program(std::mt19937_64& rng, const RandomProgramOptions& options) {
  return Generator(rng, options).make();
}

std::vector<Env> sample_envs(const Program& program, std::mt19937_64& rng, int count) {
  std::vector<Env> out;
  for (int c = 0; c < count; ++c) {
    Env env;
    for (const Node& n : program.nodes) {
      if (n.op == Op::Input) {
        auto e = edges(*n.domain);
        // The first cases walk through the edge values of every input together.
        double v = c < static_cast<int>(e.size()) ? e[static_cast<std::size_t>(c)]
                   : chance(rng, 0.25)            ? e[static_cast<std::size_t>(pick(rng, static_cast<int>(e.size())))]
                                                  : draw(*n.domain, rng);
        env.inputs[n.name] = v;
      } else if (n.op == Op::State && chance(rng, 0.7)) {
        env.state[n.name] = draw(*n.domain, rng);
      }
    }
    out.push_back(std::move(env));
  }
  return out;
}

Outcome run_case(const Evaluator& evaluator, const Env& env) {
  Outcome o;
  auto r = evaluator.run(env);
  if (!r) {
    o.failed = true;
    o.error = r.error().message;
    return o;
  }
  for (double v : r->outputs) o.outputs.push_back(std::bit_cast<std::uint64_t>(v));
  for (double v : r->next_state) o.next_state.push_back(std::bit_cast<std::uint64_t>(v));
  return o;
}

std::optional<std::string> compare_behaviour(const Program& before, const Program& after, const std::vector<Env>& envs,
                                             int* successes) {
  auto eb = Evaluator::create(before);
  auto ea = Evaluator::create(after);
  if (!eb) return "original does not prepare: " + eb.error().message;
  if (!ea) return "optimized does not prepare: " + ea.error().message;
  if (before.outputs.size() != after.outputs.size()) return std::string("output count differs");
  for (std::size_t k = 0; k < before.outputs.size(); ++k)
    if (before.outputs[k].first != after.outputs[k].first) return "output name differs at " + std::to_string(k);
  if (before.updates.size() != after.updates.size()) return std::string("update count differs");
  for (std::size_t c = 0; c < envs.size(); ++c) {
    Outcome b = run_case(*eb, envs[c]), a = run_case(*ea, envs[c]);
    std::string where = "case " + std::to_string(c) + " (";
    for (const auto& [name, v] : envs[c].inputs) where += name + "=" + show(v) + " ";
    where += ")";
    if (b.failed != a.failed)
      return where + ": original " + (b.failed ? "failed: " + b.error : "succeeded") + ", optimized " +
             (a.failed ? "failed: " + a.error : "succeeded");
    if (b.failed) continue;
    if (successes) ++*successes;
    for (std::size_t k = 0; k < b.outputs.size(); ++k)
      if (b.outputs[k] != a.outputs[k])
        return where + ": output '" + before.outputs[k].first + "' differs: " + show(std::bit_cast<double>(b.outputs[k])) +
               " vs " + show(std::bit_cast<double>(a.outputs[k]));
    for (std::size_t k = 0; k < b.next_state.size(); ++k)
      if (b.next_state[k] != a.next_state[k])
        return where + ": next state " + std::to_string(k) + " differs: " + show(std::bit_cast<double>(b.next_state[k])) +
               " vs " + show(std::bit_cast<double>(a.next_state[k]));
  }
  return std::nullopt;
}

std::optional<std::string> check_soundness(const Program& program, const Analysis& analysis,
                                           const std::vector<Env>& envs, int* checked_values) {
  auto ev = Evaluator::create(program);
  if (!ev) return "does not prepare: " + ev.error().message;
  for (std::size_t c = 0; c < envs.size(); ++c) {
    CaseTrace trace;
    auto r = ev->run(envs[c], &trace);
    if (!r) continue;
    for (std::size_t i = 0; i < program.nodes.size(); ++i) {
      if (!trace.computed[i]) continue;
      const double v = trace.values[i];
      const Interval& iv = analysis.intervals[i];
      const bool ok = iv.contains(v) && (!iv.integral || v == std::floor(v));
      if (!ok) {
        std::string where;
        for (const auto& [name, x] : envs[c].inputs) where += name + "=" + show(x) + " ";
        return describe_node(program, static_cast<NodeId>(i)) + " computed " + show(v) + " outside [" + show(iv.lo) +
               ", " + show(iv.hi) + "]" + (iv.integral ? " (integral)" : "") + " for " + where;
      }
      if (checked_values) ++*checked_values;
    }
  }
  return std::nullopt;
}

std::optional<std::string> check_errors_foreseen(const Program& program, const Analysis& analysis,
                                                 const std::vector<Env>& envs, int* failures) {
  auto ev = Evaluator::create(program);
  if (!ev) return "does not prepare: " + ev.error().message;
  std::vector<bool> warned(program.nodes.size(), false);
  for (const auto& w : analysis.warnings) warned[static_cast<std::size_t>(w.node)] = true;
  for (const Env& env : envs) {
    auto r = ev->run(env);
    if (r) continue;
    if (failures) ++*failures;
    if (!r.error().node) return "an error without a node: " + r.error().message;
    // Search the failing node and its dependencies for a warning.
    std::vector<NodeId> stack{*r.error().node};
    std::vector<bool> seen(program.nodes.size(), false);
    bool found = false;
    while (!stack.empty() && !found) {
      NodeId id = stack.back();
      stack.pop_back();
      if (seen[static_cast<std::size_t>(id)]) continue;
      seen[static_cast<std::size_t>(id)] = true;
      if (warned[static_cast<std::size_t>(id)]) found = true;
      for (NodeId a : program.nodes[static_cast<std::size_t>(id)].args) stack.push_back(a);
    }
    // A failed update check is reported on the state node.
    for (const auto& [state, next] : program.updates)
      if (next == *r.error().node && warned[static_cast<std::size_t>(state)]) found = true;
    if (!found) {
      std::string where;
      for (const auto& [name, x] : env.inputs) where += name + "=" + show(x) + " ";
      return "unforeseen error: " + r.error().message + " for " + where;
    }
  }
  return std::nullopt;
}

std::optional<CompileOptions> corpus_options(const std::string& name, const std::string& source) {
  CompileOptions o;
  o.filename = name;
  std::istringstream in(source);
  std::string line;
  bool have_inputs = false;
  while (std::getline(in, line)) {
    std::string t = trim(line);
    if (t.rfind('#', 0) != 0) break;  // the header ends at the first line that is not a comment
    t = trim(t.substr(1));
    auto colon = t.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(t.substr(0, colon)), value = trim(t.substr(colon + 1));
    if (key == "inputs") {
      have_inputs = true;
      std::istringstream items(value);
      std::string item;
      while (items >> item) {
        auto eq = item.find('=');
        if (eq == std::string::npos) return std::nullopt;
        auto d = parse_domain(item.substr(eq + 1));
        if (!d) return std::nullopt;
        o.inputs.emplace_back(item.substr(0, eq), *d);
      }
    } else if (key == "function") {
      o.function = value;
    } else if (key == "dtype") {
      auto d = dtype_from(value);
      if (!d) return std::nullopt;
      o.dtype = *d;
    } else if (key == "semantics") {
      auto s = semantics_from(value);
      if (!s) return std::nullopt;
      o.semantics = *s;
    }
  }
  if (!have_inputs) return std::nullopt;
  return o;
}

std::vector<CorpusEntry> load_corpus() {
  std::vector<CorpusEntry> out;
  const std::filesystem::path dir = std::filesystem::path(TC_TEST_DATA) / "corpus";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".py") continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    CorpusEntry entry;
    entry.name = e.path().filename().string();
    entry.source = ss.str();
    auto o = corpus_options(entry.name, entry.source);
    if (!o) continue;  // not a compilable corpus program (no header)
    entry.options = std::move(*o);
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end(), [](const CorpusEntry& a, const CorpusEntry& b) { return a.name < b.name; });
  return out;
}

}  // namespace tc::testing
