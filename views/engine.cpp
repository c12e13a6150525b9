#include "views/engine.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <sstream>

#include "base/atomic_file.h"
// The precompiled Qt headers define `emit` as a keyword macro; the engine's
// tc::emit namespace needs the plain word (this file emits no signals).
#undef emit
#include "emit/spirv.h"
#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"
#include "grad/gradients.h"
#include "grad/node_adjoints.h"
#include "ir/artifact.h"
#include "ir/printer.h"
#include "passes/analyze.h"
#include "passes/optimize.h"
#include "passes/schedule.h"
#include "runtime/runtime.h"
#include "verify/cases.h"
#include "verify/python_reference.h"
#include "verify/verify.h"

namespace tc {
namespace views {
namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  const auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  lines.push_back(cur);
  return lines;
}

}  // namespace

Directives parse_directives(const std::string& source) {
  Directives d;
  auto r = parse_input_directives(source);
  if (!r.ok()) d.problems.push_back(r.error());
  else d.domains = std::move(*r);
  return d;
}

std::string write_directives(const std::string& source, const std::vector<InputSpec>& inputs) {
  std::vector<std::pair<std::string, Domain>> saved;
  for (const auto& in : inputs)
    if (in.from_directive) saved.emplace_back(in.name, in.domain);
  return set_input_directives(source, saved);
}

CompileResult compile_source(const std::string& source, const std::string& filename, const std::string& function,
                             Dtype dtype) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileResult r;
  // One parse in core: functions, the chosen one, its domains (directives,
  // else float64 over the full range) and the program or the error.
  CompileOptions opts;
  opts.filename = filename;
  opts.function = function;
  opts.dtype = dtype;
  opts.first_function_by_default = true;
  opts.default_domain = Domain::float64();
  ModuleCompile c = compile_module(source, opts);
  r.functions = std::move(c.functions);
  r.function = c.function;
  for (const auto& in : c.inputs) r.inputs.push_back({in.name, in.domain, in.source == DomainSource::Directive});
  if (!c.output.ok()) {
    r.diagnostics.push_back(c.output.error());
  } else {
    for (const auto& w : c.output->warnings) r.diagnostics.push_back(w);
    r.program = std::make_shared<const Program>(std::move(c.output->program));
  }
  std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return a.loc.value_or(SourceLoc{}) < b.loc.value_or(SourceLoc{});
  });
  r.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

Result<std::shared_ptr<const Program>> load_artifact_file(const std::string& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.error();
  auto prog = load_artifact(*text);
  if (!prog.ok()) {
    auto d = prog.error();
    if (d.file.empty()) d.file = path;
    return d;
  }
  return std::make_shared<const Program>(std::move(*prog));
}

std::vector<int> schedule_layers(const Program& program) {
  auto sched = tc::schedule(program);
  if (sched.ok()) return sched->layer_of;
  // An invalid program never reaches the views; keep a usable fallback anyway.
  std::vector<int> layer(program.nodes.size(), 0);
  for (const auto& n : program.nodes) {
    int l = 0;
    for (NodeId a : n.args) l = std::max(l, layer[static_cast<std::size_t>(a)] + 1);
    layer[static_cast<std::size_t>(n.id)] = l;
  }
  return layer;
}

namespace {

Program with_policy(const Program& program, Semantics semantics, double temperature) {
  Program p = program;
  p.semantics = semantics;
  if (temperature > 0 && std::isfinite(temperature)) p.temperature = temperature;
  return p;
}

}  // namespace

RunResult run_case(const Program& program, const Case& inputs, Semantics semantics, double temperature,
                   const std::map<std::string, double, std::less<>>& state, const Case& params) {
  RunResult r;
  const bool same = semantics == program.semantics && temperature == program.temperature;
  std::optional<Program> copy;
  if (!same) copy = with_policy(program, semantics, temperature);
  const Program& p = copy ? *copy : program;
  auto ev = Evaluator::create(p);
  if (!ev.ok()) {
    r.error = ev.error();
    return r;
  }
  Env env;
  for (const auto& [k, v] : inputs) env.inputs[k] = v;
  for (const auto& [k, v] : state) env.state[k] = v;
  for (const auto& [k, v] : params) env.params[k] = v;
  auto res = ev->run(env, &r.trace);
  if (!res.ok()) {
    r.error = res.error();
    return r;
  }
  r.ok = true;
  r.outputs = res->outputs;
  return r;
}

NodeGradients node_gradients(const Program& program, const Case& inputs, std::size_t output, Semantics semantics,
                             double temperature, const Case& params) {
  NodeGradients g;
  if (output >= program.outputs.size()) {
    g.error = make_error("the program has no output to differentiate");
    return g;
  }
  g.available = true;
  GradOptions opts;
  opts.output = program.outputs[output].first;
  opts.semantics = semantics;
  if (temperature > 0 && std::isfinite(temperature)) opts.temperature = temperature;
  Env env;
  for (const auto& [k, v] : inputs) env.inputs[k] = v;
  for (const auto& [k, v] : params) env.params[k] = v;
  // Every node's adjoint from core's one reverse pass (grad/node_adjoints.h).
  auto r = tc::node_adjoints(program, env, opts);
  if (!r.ok()) {
    g.error = r.error();
    // "the hybrid derivative of <select> needs the value it did not choose, ...":
    // find that select so the views can mark it beside the failing node.
    if (g.error->message.find("needs the value it did not choose") != std::string::npos) {
      g.failed_node = g.error->node.value_or(-1);
      for (const auto& n : program.nodes) {
        if (n.op != Op::Select) continue;
        if (g.error->message.rfind("the hybrid derivative of " + describe_node(program, n.id) + " needs", 0) == 0) {
          g.failed_select = n.id;
          break;
        }
      }
    }
    return g;
  }
  g.ok = true;
  g.adjoint = std::move(r->adjoint);
  for (const auto& [name, d] : r->gradients) g.inputs[name] = d;
  return g;
}

Result<CaseBook> parse_case_book(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cases") || !j["cases"].is_array())
    return make_error("not a case file: expected {\"cases\": [...]}");
  CaseBook book;
  std::string current;
  if (j.contains("current") && j["current"].is_string()) current = j["current"].get<std::string>();
  for (const auto& c : j["cases"]) {
    if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) return make_error("a case without a name");
    NamedCase nc;
    nc.name = c["name"].get<std::string>();
    for (const char* key : {"inputs", "parameters"}) {
      if (!c.contains(key)) continue;
      if (!c[key].is_object()) return make_error("case '" + nc.name + "': " + key + " must be an object");
      for (const auto& [k, v] : c[key].items()) {
        if (!v.is_number()) return make_error("case '" + nc.name + "': " + k + " is not a number");
        (std::string(key) == "inputs" ? nc.inputs : nc.params)[k] = v.get<double>();
      }
    }
    if (nc.name == current) book.current = book.cases.size();
    book.cases.push_back(std::move(nc));
  }
  if (book.cases.empty()) return make_error("the case file lists no case");
  return book;
}

std::string case_book_json(const CaseBook& book) {
  nlohmann::ordered_json j;
  j["format"] = "tensorcode.ide-cases";
  if (book.current < book.cases.size()) j["current"] = book.cases[book.current].name;
  j["cases"] = nlohmann::ordered_json::array();
  for (const auto& c : book.cases) {
    nlohmann::ordered_json o;
    o["name"] = c.name;
    o["inputs"] = nlohmann::ordered_json::object();
    for (const auto& [k, v] : c.inputs) o["inputs"][k] = v;
    if (!c.params.empty()) {
      o["parameters"] = nlohmann::ordered_json::object();
      for (const auto& [k, v] : c.params) o["parameters"][k] = v;
    }
    j["cases"].push_back(o);
  }
  return j.dump(2) + "\n";
}

Analysis analyze_program(const Program& program) {
  Analysis a;
  auto r = tc::analyze(program);
  if (!r.ok()) return a;
  a.available = true;
  for (const auto& iv : r->intervals) a.intervals.emplace_back(iv.lo, iv.hi);
  for (const auto& w : r->warnings) a.warnings.emplace_back(w.node, w.message);
  return a;
}

std::string iteration_text(const Node& node) {
  std::string s;
  for (const auto& step : node.iteration) s += (s.empty() ? "" : ", ") + step.variable + "=" + std::to_string(step.value);
  return s;
}

std::string format_number(double v) {
  if (std::isnan(v)) return "—";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

namespace {
std::atomic<int> g_display_precision{6};

int significant_digits(const std::string& shortest) {
  // Digits of the mantissa without leading zeros (to_chars: "1638.0000000000007", "1.5e-07", "120").
  std::string m = shortest.substr(0, shortest.find_first_of("eE"));
  std::string digits;
  for (char c : m)
    if (c >= '0' && c <= '9') digits += c;
  const auto first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  digits = digits.substr(first);
  // Trailing zeros of an integer ("120") are not significant.
  if (m.find('.') == std::string::npos) {
    const auto last = digits.find_last_not_of('0');
    digits = digits.substr(0, last + 1);
  }
  return static_cast<int>(digits.size());
}
}  // namespace

int display_precision() { return g_display_precision.load(); }
void set_display_precision(int digits) { g_display_precision.store(std::clamp(digits, 0, 17)); }

std::string format_with_precision(double v, int digits) {
  const std::string shortest = format_number(v);
  if (!std::isfinite(v) || digits <= 0 || significant_digits(shortest) <= digits) return shortest;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string format_short(double v) { return format_with_precision(v, display_precision()); }

Disassembly disassemble(const Program& program, const std::vector<int>& layers) {
  // The same listing as `tensorcode info --ir` (core/ir/printer.h).
  return Disassembly{print_ir(program, layers), kIrFirstNodeLine};
}

Replay replay_events(const Program& program, const std::string& snapshot_text, const std::string& events_text,
                     const std::string& events_name, Progress* progress, std::size_t skip_events) {
  Replay r;
  auto rt = snapshot_text.empty() ? Runtime::create(program) : Runtime::restore_text(snapshot_text);
  if (!rt.ok()) {
    r.error = rt.error();
    return r;
  }
  r.state_names = rt->state_names();
  r.initial_state = rt->state();
  r.base_steps = rt->steps();
  r.max_steps = rt->max_steps();
  const bool keep_values = program.nodes.size() <= 20000;
  std::size_t kept = 0;
  const auto lines = split_lines(events_text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (progress) {
      if (progress->cancelled()) {
        r.error = make_error("cancelled");
        return r;
      }
      if (i % 256 == 0) progress->update(i, lines.size(), "events");
    }
    if (trim(lines[i]).empty()) continue;
    if (skip_events > 0) {
      --skip_events;
      continue;
    }
    auto fail = [&](Diagnostic d) {
      d.file = events_name;
      d.loc = SourceLoc{static_cast<int>(i + 1), 1};
      r.error = d;
    };
    auto ev = rt->parse_event(lines[i]);
    if (!ev.ok()) {
      fail(ev.error());
      return r;
    }
    CaseTrace trace;
    // Per-node values of every step for the graph and "jump to change", within a memory budget.
    const bool trace_this = keep_values && kept < 20'000'000;
    auto res = rt->dispatch(*ev, trace_this ? &trace : nullptr);
    if (!res.ok()) {
      fail(res.error());
      return r;
    }
    StepRecord rec;
    rec.line = static_cast<int>(i + 1);
    for (const auto& [k, v] : *ev) rec.inputs[k] = v;
    rec.outputs = res->outputs;
    rec.state = res->state;
    if (trace_this) {
      rec.values = std::move(trace.values);
      kept += rec.values.size();
    }
    r.steps.push_back(std::move(rec));
  }
  return r;
}

Result<std::string> snapshot_json(const Program& program, const std::vector<std::string>& state_names,
                                  const std::vector<double>& state, std::uint64_t steps, std::uint64_t max_steps) {
  nlohmann::ordered_json j;
  j["format"] = "tensorcode.snapshot";
  j["version"] = 1;
  j["program"] = program_to_json(program);
  nlohmann::ordered_json st = nlohmann::ordered_json::object();
  for (std::size_t u = 0; u < state_names.size() && u < state.size(); ++u) st[state_names[u]] = state[u];
  j["state"] = st;
  j["steps"] = steps;
  j["max_steps"] = max_steps;
  std::string text = j.dump(2) + "\n";
  // Only write what the runtime itself would restore.
  auto check = Runtime::restore_text(text);
  if (!check.ok()) return check.error();
  return text;
}

Result<SnapshotInfo> snapshot_info(const std::string& text) {
  auto rt = Runtime::restore_text(text);
  if (!rt.ok()) return rt.error();
  return SnapshotInfo{std::make_shared<const Program>(rt->program()), rt->steps()};
}

namespace {
std::string outcome_text(const Outcome& o) {
  if (o.raised) return "error: " + o.error;
  std::string s;
  for (const auto& [k, v] : o.outputs) s += (s.empty() ? "" : ", ") + k + " = " + format_number(v);
  return s;
}
}  // namespace

namespace {
std::string difference_text(const Outcome& c, const Outcome& r) {
  if (c.raised && r.raised) return "both raised";
  if (c.raised) return "only the circuit raised";
  if (r.raised) return "only the reference raised";
  std::string s;
  for (const auto& [name, cv] : c.outputs) {
    for (const auto& [rname, rv] : r.outputs) {
      if (rname != name) continue;
      s += (s.empty() ? "" : ", ") + name + " " + format_number(cv - rv);
    }
  }
  return s;
}
}  // namespace

VerifyResult verify_source(const std::string& source, const std::string& filename, const std::string& function,
                           const VerifySettings& settings, Progress* progress) {
  VerifyResult v;
  std::string why;
  if (!python_reference_available(&why)) {
    v.error = make_error("verification needs the embedded CPython: " + why);
    return v;
  }
  v.available = true;
  if (Status s = check_tolerance({settings.atol, settings.rtol}); !s) {
    v.error = s.error();
    return v;
  }
  CompileResult c = compile_source(source, filename, function, settings.dtype);
  if (!c.program) {
    v.error = c.diagnostics.empty() ? make_error("the source does not compile") : c.diagnostics.front();
    for (const auto& d : c.diagnostics)
      if (d.severity == Severity::Error) v.error = d;
    return v;
  }
  PythonReferenceOptions ro;
  if (settings.reference_path.empty()) {
    ro.source = source;
    ro.filename = filename;
    ro.function = c.function;
  } else {
    auto text = read_file(settings.reference_path);
    if (!text.ok()) {
      v.error = text.error();
      return v;
    }
    ro.source = std::move(*text);
    ro.filename = settings.reference_path;
    ro.function = settings.reference_function;
    ro.preferred_function = c.function;
  }
  auto ref = make_python_reference(ro);
  if (!ref.ok()) {
    v.error = ref.error();
    if (v.error->file.empty()) v.error->file = ro.filename;
    return v;
  }
  v.reference = (*ref)->describe();
  VerifyOptions vo;
  vo.progress = progress;
  vo.tolerance = {settings.atol, settings.rtol};
  if (!settings.cases_path.empty()) {
    auto text = read_file(settings.cases_path);
    if (!text.ok()) {
      v.error = text.error();
      return v;
    }
    auto cases = parse_cases_jsonl(*text, program_inputs(*c.program), settings.cases_path);
    if (!cases.ok()) {
      v.error = cases.error();
      return v;
    }
    vo.cases = std::move(*cases);
  }
  auto rep = tc::verify(*c.program, **ref, vo);
  if (!rep.ok()) {
    v.error = rep.error();
    return v;
  }
  v.ok = true;
  v.cases = rep->cases;
  v.exhaustive = rep->exhaustive;
  v.passed = rep->passed;
  v.mismatch_count = rep->mismatch_count;
  for (const auto& m : rep->mismatches) {
    VerifyMismatch mm;
    for (const auto& [k, val] : m.inputs) mm.inputs[k] = val;
    mm.circuit = outcome_text(m.circuit);
    mm.reference = outcome_text(m.reference);
    mm.difference = difference_text(m.circuit, m.reference);
    v.mismatches.push_back(std::move(mm));
  }
  return v;
}

Result<std::string> export_artifact(const Program& program) { return save_artifact(program); }

Result<std::string> export_optimized(const Program& program) {
  auto o = tc::optimize(program);
  if (!o.ok()) return o.error();
  return save_artifact(o->program);
}

Result<std::string> export_target(const Program& program, const std::string& target) {
  if (target == "wgsl") return tc::emit::emit_wgsl(program);
  if (target == "spirv") {
    auto w = tc::emit::emit_wgsl(program);
    if (!w.ok()) return w.error();
    if (!tc::emit::have_spirv_tools()) return tc::emit::wgsl_to_spirv_asm(*w);  // assembly text when the binary cannot be assembled
    auto words = tc::emit::wgsl_to_spirv(*w);
    if (!words.ok()) return words.error();
    return std::string(reinterpret_cast<const char*>(words->data()), words->size() * sizeof(std::uint32_t));
  }
  if (target == "wasm") {
    auto w = tc::emit::emit_wasm(program);
    if (!w.ok()) return w.error();
    return std::string(w->begin(), w->end());
  }
  return make_error("unknown export target '" + target + "'");
}

std::vector<std::string> export_targets() {
  return {"wgsl", "spirv", "wasm"};
}

}  // namespace views
}  // namespace tc
