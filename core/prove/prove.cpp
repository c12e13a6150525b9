#include "prove/prove.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <z3++.h>

#include "base/number_text.h"
#include "eval/evaluator.h"
#include "prove/encode.h"
#include "prove/second_opinion.h"

namespace tc::prove {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// The evaluator's outcome of one case (the interpreter: the reference the
/// solvers' answers are checked against).
Outcome evaluate(const Program& p, const std::map<std::string, double, std::less<>>& inputs, Diagnostic* error) {
  EvalOptions eo;
  eo.plan = EvalPlan::Interpreter;
  auto ev = Evaluator::create(p, eo);
  if (!ev) return Outcome::failure(ev.error().message);
  Env env;
  for (const auto& [name, v] : inputs)
    if (p.find_named(Op::Input, name)) env.inputs.emplace(name, v);
  auto r = ev->run(env);
  if (!r) {
    if (error) *error = r.error();
    return Outcome::failure(r.error().message);
  }
  Outcome o;
  for (std::size_t k = 0; k < p.outputs.size(); ++k) o.outputs.emplace_back(p.outputs[k].first, r->outputs[k]);
  return o;
}

/// Z3's answer to `query` (inputs in their domains and the property).
struct Z3Run {
  SolverAnswer answer;
  std::optional<z3::model> model;
};
Z3Run run_z3(z3::context& c, const z3::expr& query, double timeout_s) {
  Z3Run out;
  out.answer.solver = "z3";
  const auto t0 = Clock::now();
  try {
    z3::solver s(c, "QF_FPBV");
    z3::params prm(c);
    prm.set("timeout", static_cast<unsigned>(std::clamp(timeout_s * 1000.0, 1.0, 4.0e9)));
    s.set(prm);
    s.add(query);
    switch (s.check()) {
      case z3::unsat: out.answer.answer = "unsat"; break;
      case z3::sat:
        out.answer.answer = "sat";
        out.model = s.get_model();
        break;
      case z3::unknown: {
        const std::string why = s.reason_unknown();
        const bool timed_out = why.find("timeout") != std::string::npos || why.find("canceled") != std::string::npos;
        out.answer.answer = timed_out ? "timeout" : "unknown";
        out.answer.detail = why;
        break;
      }
    }
  } catch (const z3::exception& e) {
    out.answer.answer = "error";
    out.answer.detail = e.msg();
  }
  out.answer.seconds = since(t0);
  return out;
}

/// Carries ProveOptions::cancel to the solvers while a proof runs. Z3 has
/// no flag to poll, only an interrupt that stops the check running at that
/// moment, so a thread looks at the caller's flag every 20 ms and, once it
/// is set, interrupts the context at every look (a check that starts after
/// the first interrupt stops too) and raises child(), which kills cvc5.
/// child() also lets decide() stop cvc5 when Z3's counterexample suffices.
class CancelWatch {
 public:
  CancelWatch(z3::context& c, const std::atomic<bool>* from) : c_(c), from_(from) {
    if (from_) thread_ = std::thread([this] { watch(); });
  }
  CancelWatch(const CancelWatch&) = delete;
  CancelWatch& operator=(const CancelWatch&) = delete;
  ~CancelWatch() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> hold(m_);
      done_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  [[nodiscard]] bool cancelled() const { return from_ != nullptr && from_->load(); }
  std::atomic<bool>& child() { return child_; }

 private:
  void watch() {
    std::unique_lock<std::mutex> hold(m_);
    while (!wake_.wait_for(hold, std::chrono::milliseconds(20), [this] { return done_; }))
      if (from_->load()) {
        child_ = true;
        c_.interrupt();
      }
  }
  z3::context& c_;
  const std::atomic<bool>* from_;
  std::atomic<bool> child_{false};
  std::mutex m_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

void report(const ProveOptions& o, std::string_view phase, int done, int total) {
  if (o.progress) o.progress(phase, done, total);
}

ProveResult cancelled_result(std::vector<SolverAnswer> solvers = {}) {
  ProveResult r;
  r.verdict = Verdict::Unknown;
  r.reason = "cancelled";
  r.solvers = std::move(solvers);
  return r;
}

/// Runs the query through Z3 (in this thread) and cvc5 (a child process,
/// started first, so the two run at the same time). A model is handed to
/// `confirm`, which fills the counterexample and returns whether the
/// evaluator reproduced it; the first reproduced one stops the other
/// solver. A proof needs Z3's and cvc5's unsat, or one of them with the
/// other's answer named (timeout, unavailable).
template <class Confirm>
ProveResult decide(z3::context& c, Encoder& enc, const z3::expr& property, const ProveOptions& options,
                   CancelWatch& watch, Verdict proved, Verdict disproved, Confirm confirm) {
  const auto t0 = Clock::now();
  ProveResult res;
  if (watch.cancelled()) return cancelled_result();
  const z3::expr query = enc.domains() && property;
  const std::vector<std::string> vars = enc.variable_names();

  Cvc5Run second{{"cvc5", "not run", 0, "no second solver was asked"}, {}};
  std::atomic<bool>& cancel = watch.child();
  std::mutex z3_lock;
  bool z3_running = true, z3_stopped = false;
  std::thread worker;
  if (!options.cvc5.empty()) {
    std::string script;
    try {
      script = smtlib_script(query, vars);  // the context is not shared with the thread
    } catch (const z3::exception& e) {
      second.answer = {"cvc5", "error", 0, std::string("cannot print the query: ") + e.msg()};
    }
    if (!script.empty())
      worker = std::thread([&, script = std::move(script)] {
        Cvc5Run r = ask_cvc5(options.cvc5, script, vars, options.timeout_s, &cancel);
        if (r.answer.answer == "sat" && !r.model.empty()) {
          std::lock_guard<std::mutex> hold(z3_lock);
          if (z3_running) {
            z3_stopped = true;
            c.interrupt();
          }
        }
        second = std::move(r);
      });
  }
  report(options, "z3", 0, 1);
  Z3Run z = run_z3(c, query, options.timeout_s);
  {
    std::lock_guard<std::mutex> hold(z3_lock);
    z3_running = false;
    if (z3_stopped) z.answer = {"z3", "stopped", z.answer.seconds, "cvc5 found a counterexample first"};
  }
  report(options, "z3", 1, 1);
  const auto wait_cvc5 = [&] {
    if (!worker.joinable()) return;
    report(options, "cvc5", 0, 1);
    worker.join();
    report(options, "cvc5", 1, 1);
  };
  auto finish = [&](Verdict v) {
    wait_cvc5();
    res.verdict = v;
    res.solvers = {z.answer, second.answer};
    res.seconds = since(t0);
    return res;
  };
  // Cancelled: the solvers are stopped (the watch killed cvc5 and
  // interrupted Z3, whose "timeout" was the interrupt) and nothing is
  // concluded from what they said before.
  const auto stop = [&] {
    cancel = true;
    wait_cvc5();
    if (z.answer.answer == "timeout" || z.answer.answer == "unknown") z.answer.answer = "cancelled";
    ProveResult r = cancelled_result({z.answer, second.answer});
    r.seconds = since(t0);
    return r;
  };
  if (watch.cancelled()) return stop();
  if (z.answer.answer == "sat") {
    Counterexample cex;
    for (const auto& [name, v] : enc.values_in(*z.model)) cex.inputs.emplace_back(name, v);
    if (confirm(enc.values_in(*z.model), cex)) {
      cancel = true;
      wait_cvc5();
      if (second.answer.answer == "cancelled") second.answer = {"cvc5", "not needed", second.answer.seconds, "z3 found a counterexample first"};
      res.counterexample = std::move(cex);
      return finish(disproved);
    }
    res.reason = "z3's counterexample does not reproduce in the evaluator (a solver bug or an encoding gap)";
  }
  wait_cvc5();
  if (watch.cancelled()) return stop();
  if (second.answer.answer == "sat") {
    if (auto values = enc.values_from(second.model)) {
      Counterexample cex;
      for (const auto& [name, v] : *values) cex.inputs.emplace_back(name, v);
      if (confirm(*values, cex)) {
        res.counterexample = std::move(cex);
        res.reason.clear();
        return finish(disproved);
      }
      res.reason += std::string(res.reason.empty() ? "" : "; ") +
                    "cvc5's counterexample does not reproduce in the evaluator (a solver bug or an encoding gap)";
    } else {
      res.reason += std::string(res.reason.empty() ? "" : "; ") + "cvc5 says sat but its values could not be read";
    }
    return finish(Verdict::Unknown);
  }
  if (!res.reason.empty()) return finish(Verdict::Unknown);
  const std::string& za = z.answer.answer;
  const std::string& ca = second.answer.answer;
  if (za == "unsat" || ca == "unsat") return finish(proved);
  res.reason = "no solver answered (z3: " + za + (z.answer.detail.empty() ? "" : " (" + z.answer.detail + ")") +
               ", cvc5: " + ca + (second.answer.detail.empty() ? "" : " (" + second.answer.detail + ")") + ")";
  return finish(Verdict::Unknown);
}

// ------------------------------------------------------------ sweeping

/// Cases drawn over the domains (ends, zero, small integers, uniform draws)
/// with a fixed seed: the simulation that proposes which nodes of B compute
/// what a node of A computes.
std::vector<std::map<std::string, double, std::less<>>> sample_cases(const std::map<std::string, Domain>& domains,
                                                                      std::size_t count) {
  std::mt19937_64 rng(0x7072'6f76'6521ull);
  std::vector<std::map<std::string, double, std::less<>>> out(count);
  for (const auto& [name, d] : domains) {
    const double lo = d.lo(), hi = d.hi();
    for (std::size_t k = 0; k < count; ++k) {
      double v = 0;
      const unsigned pick = static_cast<unsigned>(rng() % 8);
      if (pick == 0) v = lo;
      else if (pick == 1) v = hi;
      else if (pick == 2) v = std::clamp(0.0, lo, hi);
      else if (pick == 3) v = std::clamp(static_cast<double>(static_cast<int>(rng() % 33) - 16), lo, hi);
      else {
        const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
        v = d.is_integral() ? std::floor(lo + u * (hi - lo + 1)) : lo / 2 + u * (hi / 2 - lo / 2) + u * (hi / 2 - lo / 2);
        v = std::clamp(v, lo, hi);
      }
      if (d.type == DomainType::Float32) v = std::clamp(static_cast<double>(static_cast<float>(v)), lo, hi);
      out[k].emplace(name, v);
    }
  }
  return out;
}

/// Each node's values over the cases, as bytes (a node not computed in a
/// case has a marker there); empty when the program cannot be traced.
std::vector<std::string> signatures(const Program& p, const std::vector<std::map<std::string, double, std::less<>>>& cases) {
  std::vector<std::string> sig(p.nodes.size());
  EvalOptions eo;
  eo.plan = EvalPlan::Interpreter;
  auto ev = Evaluator::create(p, eo);
  if (!ev) return {};
  for (const auto& values : cases) {
    Env env;
    for (const auto& [name, v] : values) env.inputs.emplace(name, v);
    CaseTrace trace;
    auto r = ev->run(env, &trace);
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      char bytes[9] = {};
      if (r && i < trace.computed.size() && trace.computed[i]) {
        bytes[0] = 1;
        std::memcpy(bytes + 1, &trace.values[i], 8);
      }
      sig[i].append(bytes, sizeof bytes);
    }
  }
  return sig;
}

/// Proves `b == a` (bit for bit, the sign of zero included) with the
/// node's arguments cut: they become free variables (finite, unless the node
/// is an exact select, whose untaken branch may hold anything), so the query
/// is as small as the two nodes' own terms. Sound for merging: the claim for
/// all argument values includes the arguments' actual values.
/// Answers of equal_with_cut by the cut terms' ids: the cut variables are
/// named by argument position, so every level of a repeated rewrite (x*2
/// against x+x in each iteration of an unrolled loop) is the same query.
using CutAnswers = std::map<std::pair<unsigned, unsigned>, bool>;

bool equal_with_cut(z3::context& c, const Program& pb, NodeId id, const std::vector<z3::expr>& arg_terms,
                    const z3::expr& a, const z3::expr& b, double timeout_s, CutAnswers& known) {
  if (a.get_sort().id() != b.get_sort().id()) return false;
  const Node& node = pb.nodes[static_cast<std::size_t>(id)];
  const bool lazy = node.op == Op::Select && pb.semantics_of(node) != Semantics::Relaxed;
  z3::expr_vector from(c), to(c);
  z3::expr assume = c.bool_val(true);
  for (std::size_t k = 0; k < arg_terms.size(); ++k) {
    bool seen = false;
    for (unsigned j = 0; j < from.size(); ++j) seen = seen || z3::eq(from[j], arg_terms[k]);
    if (seen || arg_terms[k].is_numeral() || arg_terms[k].is_const()) continue;
    const z3::sort s = arg_terms[k].get_sort();
    if (!s.is_fpa()) continue;
    const std::string name = "cut_" + std::to_string(k);
    z3::expr v = c.constant(name.c_str(), s);
    from.push_back(arg_terms[k]);
    to.push_back(v);
    if (!lazy)
      assume = assume && !z3::expr(c, Z3_mk_fpa_is_nan(c, v)) && !z3::expr(c, Z3_mk_fpa_is_infinite(c, v));
  }
  z3::expr ca = a, cb = b;
  if (from.size() > 0) {
    ca = ca.substitute(from, to);
    cb = cb.substitute(from, to);
  }
  if (z3::eq(ca, cb)) return true;
  const std::pair<unsigned, unsigned> key{Z3_get_ast_id(c, ca), Z3_get_ast_id(c, cb)};
  if (auto it = known.find(key); it != known.end()) return it->second;
  try {
    z3::solver s(c, "QF_FPBV");
    z3::params prm(c);
    // A resource limit, not only a clock: on a loaded machine a clock would
    // turn the same query into "no" on one run and "yes" on the next. 4e7
    // units is about 16 times what x*2 against x+x in binary64 takes (2.4e6,
    // about 0.4 s on an idle core).
    prm.set("rlimit", 40000000u);
    prm.set("timeout", static_cast<unsigned>(std::clamp(timeout_s * 1000.0, 1.0, 4.0e9)));
    s.set(prm);
    s.add(assume && ca != cb);
    const z3::check_result r = s.check();
    if (r == z3::unknown) return false;  // not remembered: a later try may have more time
    known.emplace(key, r == z3::unsat);
    return r == z3::unsat;
  } catch (const z3::exception&) {
    return false;
  }
}

std::map<std::string, Domain> input_domains(const Program& p) {
  std::map<std::string, Domain> out;
  for (NodeId id : p.nodes_of(Op::Input))
    out.emplace(p.nodes[static_cast<std::size_t>(id)].name,
                p.nodes[static_cast<std::size_t>(id)].domain.value_or(Domain::float64()));
  return out;
}

Status same_signature(const Program& a, const Program& b) {
  const auto da = input_domains(a), db = input_domains(b);
  for (const auto& [name, d] : da) {
    auto it = db.find(name);
    if (it == db.end()) return make_error("input '" + name + "' of the first program is not an input of the second");
    if (!(it->second == d))
      return make_error("input '" + name + "' has domain " + d.to_string() + " in the first program and " +
                        it->second.to_string() + " in the second");
  }
  for (const auto& [name, d] : db)
    if (!da.count(name)) return make_error("input '" + name + "' of the second program is not an input of the first");
  std::set<std::string> oa, ob;
  for (const auto& o : a.outputs) oa.insert(o.first);
  for (const auto& o : b.outputs) ob.insert(o.first);
  for (const auto& o : oa)
    if (!ob.count(o)) return make_error("output '" + o + "' of the first program is not an output of the second");
  for (const auto& o : ob)
    if (!oa.count(o)) return make_error("output '" + o + "' of the second program is not an output of the first");
  return ok_status();
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Equivalent: return "equivalent";
    case Verdict::Different: return "different";
    case Verdict::CannotFail: return "cannot-fail";
    case Verdict::CanFail: return "can-fail";
    case Verdict::Unknown: return "unknown";
  }
  return "unknown";
}

Result<ProveResult> prove_equivalent(const Program& a, const Program& b, const ProveOptions& options) {
  if (Status s = check_tolerance(options.tolerance); !s) return s.error();
  if (Status s = validate(a); !s) return make_error("the first program: " + s.error().message);
  if (Status s = validate(b); !s) return make_error("the second program: " + s.error().message);
  if (Status s = same_signature(a, b); !s) return s.error();
  const auto t0 = Clock::now();
  z3::context c;
  CancelWatch watch(c, options.cancel);
  Encoder enc(c);
  auto ta = enc.encode(a);
  if (!ta) {
    Diagnostic d = ta.error();
    d.message = "the first program: " + d.message;
    return d;
  }
  const int total = static_cast<int>(b.nodes.size());
  report(options, "sweep", 0, total);
  // Sweeping, as equivalence checkers for circuits do: simulation proposes
  // nodes of B that compute what a node of A computes, a small query with
  // the arguments cut proves each (bottom-up, so the arguments are already
  // A's terms), and a proved node of B takes A's term. What both programs
  // compute alike is then one term, and the final miter is left with the
  // parts that really differ.
  std::map<std::string, z3::expr> of_a;  // A's value term by signature
  std::vector<std::string> sig_b;
  const auto cases = sample_cases(input_domains(a), 48);
  if (const auto sig_a = signatures(a, cases); !sig_a.empty()) {
    for (std::size_t i = 0; i < a.nodes.size(); ++i)
      if (static_cast<Z3_ast>(ta->value[i]) != nullptr && !is_leaf(a.nodes[i].op) && sig_a[i].find('\1') != std::string::npos)
        of_a.emplace(sig_a[i], ta->value[i]);
    sig_b = signatures(b, cases);
  }
  std::size_t merged = 0;
  CutAnswers known;
  const double budget_s = options.timeout_s / 2;  // the sweep's share of the time
  const auto sweep_start = Clock::now();
  int reported = 0;
  Encoder::Merge merge = [&](NodeId id, const std::vector<z3::expr>& values, z3::expr& value) {
    const auto i = static_cast<std::size_t>(id);
    if (static_cast<int>(i) + 1 > reported) report(options, "sweep", reported = static_cast<int>(i) + 1, total);
    if (sig_b.empty() || since(sweep_start) > budget_s || watch.cancelled()) return;
    auto it = of_a.find(sig_b[i]);
    if (it == of_a.end() || z3::eq(it->second, value)) return;
    std::vector<z3::expr> args;
    for (NodeId k : b.nodes[i].args) args.push_back(values[static_cast<std::size_t>(k)]);
    // Each query gets at most what is left of the sweep's half, so that the
    // sweep and the solvers after it stay within --timeout together.
    const double left_s = std::max(0.001, budget_s - since(sweep_start));
    if (equal_with_cut(c, b, id, args, it->second, value, std::min(20.0, left_s), known)) {
      value = it->second;
      ++merged;
    }
  };
  auto tb = enc.encode(b, merge);
  if (!tb) {
    Diagnostic d = tb.error();
    d.message = "the second program: " + d.message;
    return d;
  }
  report(options, "sweep", total, total);
  // The miter: the programs disagree on failing, or both succeed and some
  // output is out of tolerance. A term both programs share (the same value,
  // the same failure) drops out here, before any solver sees it.
  const double atol = options.tolerance.atol, rtol = options.tolerance.rtol;
  z3::expr any_off = c.bool_val(false);
  for (std::size_t i = 0; i < ta->output_names.size(); ++i) {
    const auto at = std::find(tb->output_names.begin(), tb->output_names.end(), ta->output_names[i]);
    const z3::expr& x = ta->outputs[i];
    const z3::expr& y = tb->outputs[static_cast<std::size_t>(at - tb->output_names.begin())];
    if (z3::eq(x, y)) continue;
    z3::expr agree(c);
    if (atol == 0 && rtol == 0) {
      agree = z3::expr(c, Z3_mk_fpa_eq(c, x, y));  // |a - b| <= 0: equal, -0 == +0
    } else {
      const z3::expr rne(c, Z3_mk_fpa_rne(c));
      const z3::expr diff(c, Z3_mk_fpa_abs(c, z3::expr(c, Z3_mk_fpa_sub(c, rne, x, y))));
      const z3::expr scaled(c, Z3_mk_fpa_mul(c, rne, fp_constant(c, rtol, false), z3::expr(c, Z3_mk_fpa_abs(c, y))));
      const z3::expr bound(c, Z3_mk_fpa_add(c, rne, fp_constant(c, atol, false), scaled));
      agree = z3::expr(c, Z3_mk_fpa_leq(c, diff, bound));
    }
    any_off = any_off || !agree;
  }
  const z3::expr both_ok = !ta->fails && !tb->fails;
  const z3::expr differ =
      z3::eq(ta->fails, tb->fails) ? (both_ok && any_off) : ((ta->fails != tb->fails) || (both_ok && any_off));
  // The solvers get the time the sweep left (at least the other half).
  ProveOptions rest = options;
  rest.timeout_s = std::max(options.timeout_s - since(sweep_start), options.timeout_s / 2);
  ProveResult r = decide(c, enc, differ, rest, watch, Verdict::Equivalent, Verdict::Different,
                         [&](const std::map<std::string, double, std::less<>>& values, Counterexample& cex) {
                           cex.a = evaluate(a, values, nullptr);
                           cex.b = evaluate(b, values, nullptr);
                           return !outcomes_agree(cex.a, cex.b, options.tolerance);
                         });
  r.merged = merged;
  r.seconds = since(t0);
  return r;
}

Status encodable(const Program& program) {
  if (Status s = validate(program); !s) return s;
  z3::context c;
  Encoder enc(c);
  if (auto t = enc.encode(program); !t) return t.error();
  return ok_status();
}

Result<ProveResult> prove_cannot_fail(const Program& a, const ProveOptions& options) {
  if (Status s = validate(a); !s) return s.error();
  const auto t0 = Clock::now();
  z3::context c;
  CancelWatch watch(c, options.cancel);
  Encoder enc(c);
  auto ta = enc.encode(a);
  if (!ta) return ta.error();
  ProveResult r = decide(c, enc, ta->fails, options, watch, Verdict::CannotFail, Verdict::CanFail,
                         [&](const std::map<std::string, double, std::less<>>& values, Counterexample& cex) {
                           Diagnostic error;
                           cex.a = evaluate(a, values, &error);
                           if (!cex.a.raised) return false;
                           cex.node = error.node;
                           cex.message = error.message;
                           return true;
                         });
  r.seconds = since(t0);
  return r;
}

Result<ProveResult> prove(const Program& a, const Program* b, const ProveOptions& options) {
  return b ? prove_equivalent(a, *b, options) : prove_cannot_fail(a, options);
}

nlohmann::ordered_json to_json(const ProveResult& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["verdict"] = to_string(r.verdict);
  if (r.counterexample) {
    const Counterexample& cex = *r.counterexample;
    J cj;
    J inputs = J::object();
    std::string run;
    for (const auto& [name, v] : cex.inputs) {
      inputs[name] = v;
      run += (run.empty() ? "" : " ") + std::string("--set ") + name + "=" + shortest_number(v);
    }
    cj["inputs"] = inputs;
    cj["set"] = run;
    auto side = [](const Outcome& o) {
      J s = J::object();
      if (o.raised) s["error"] = o.error;
      else
        for (const auto& [name, v] : o.outputs) s[name] = v;
      return s;
    };
    if (r.verdict == Verdict::CanFail) {
      if (cex.node) cj["node"] = *cex.node;
      cj["message"] = cex.message;
    } else {
      cj["a"] = side(cex.a);
      cj["b"] = side(cex.b);
    }
    j["counterexample"] = cj;
  }
  J solvers = J::object();
  for (const auto& s : r.solvers) solvers[s.solver] = s.answer;
  j["solvers"] = solvers;
  J seconds = J::object();
  for (const auto& s : r.solvers) seconds[s.solver] = std::round(s.seconds * 1000.0) / 1000.0;
  j["solver_seconds"] = seconds;
  j["seconds"] = std::round(r.seconds * 1000.0) / 1000.0;
  if (r.verdict != Verdict::CannotFail && r.verdict != Verdict::CanFail) j["merged"] = r.merged;
  if (!r.reason.empty()) j["reason"] = r.reason;
  return j;
}

}  // namespace tc::prove
