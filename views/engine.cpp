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
#include "emit/targets.h"
#include "grad/gradients.h"
#include "grad/node_adjoints.h"
#include "ir/artifact.h"
#include "ir/printer.h"
#include "ir/policy.h"
#include "passes/analyze.h"
#include "passes/optimize.h"
#include "passes/schedule.h"
#include "runtime/event_log.h"
#include "runtime/runtime.h"
#include "verify/cases.h"
#include "verify/python_reference.h"
#include "verify/verify.h"
#include "workbench/export.h"
#include "workbench/workbench.h"

namespace tc {
namespace views {

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
                             std::optional<Dtype> dtype) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileResult r;
  // One parse in core: functions, the chosen one, its domains (directives,
  // else float64 over the full range) and the program or the error.
  CompileOptions opts;
  opts.filename = filename;
  opts.function = function;
  opts.hints = HintSpelling::Ide;  // "raise it with the Max iterations setting", not a CLI flag
  auto directives = parse_compile_directives(source, filename);
  if (!directives.ok()) r.diagnostics.push_back(directives.error());
  else apply_compile_directives(*directives, opts);
  if (dtype) opts.dtype = *dtype;
  opts.first_function_by_default = true;
  opts.default_domain = Domain::float64();
  ModuleCompile c = compile_module(source, opts);
  r.functions = std::move(c.functions);
  r.function = c.function;
  for (const auto& in : c.inputs) r.inputs.push_back({in.name, in.domain, in.source == DomainSource::Directive});
  if (!c.output.ok()) {
    r.diagnostics.push_back(c.output.error());
  } else if (!directives.ok()) {
    // A malformed compile directive: nothing compiled with settings the file does not mean.
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
  // A validated program always schedules; the views never see another kind.
  auto sched = tc::schedule(program);
  return sched.ok() ? sched->layer_of : std::vector<int>(program.nodes.size(), 0);
}

RunResult run_case(ProgramSession& session, const Case& inputs, Semantics semantics, double temperature,
                   const std::map<std::string, double, std::less<>>& state, const Case& params) {
  RunResult r;
  // The panel's semantics and temperature (an unusable temperature keeps the
  // program's). A trace is the interpreter's: this evaluator never compiles.
  const bool usable = temperature > 0 && std::isfinite(temperature);
  auto ev = session.evaluator(Policy{.semantics = semantics, .temperature = usable ? std::optional(temperature) : std::nullopt},
                              EvalPlan::Interpreter);
  if (!ev.ok()) {
    r.error = ev.error();
    return r;
  }
  Env env;
  for (const auto& [k, v] : inputs) env.inputs[k] = v;
  for (const auto& [k, v] : state) env.state[k] = v;
  for (const auto& [k, v] : params) env.params[k] = v;
  auto res = (*ev)->run(env, &r.trace);
  if (!res.ok()) {
    r.error = res.error();
    return r;
  }
  r.ok = true;
  r.outputs = res->outputs;
  return r;
}

void fill_known_values(const Program& program, const Case& params, std::vector<double>& values) {
  const std::size_t n = std::min(values.size(), program.nodes.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(values[i])) continue;
    const Node& node = program.nodes[i];
    if (node.op == Op::Constant) {
      values[i] = node.value;
    } else if (node.op == Op::Parameter) {
      auto it = params.find(node.name);
      values[i] = it != params.end() ? it->second : node.value;
    }
  }
}

NodeGradients node_gradients(const Program& program, const Case& inputs, std::size_t output, Semantics semantics,
                             double temperature, const Case& params, const Case& state) {
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
  for (const auto& [k, v] : state) env.state[k] = v;
  // Every node's adjoint from core's one reverse pass (grad/node_adjoints.h).
  auto r = tc::node_adjoints(program, env, opts, &g.forward);
  if (!r.ok()) {
    g.error = r.error();
    // The select whose jump term needs the undefined value, by the diagnostic's code (never its words).
    if (g.error->code == DiagCode::HybridNeedsUnchosen) {
      g.failed_node = g.error->node.value_or(-1);
      g.failed_select = g.error->related.value_or(-1);
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

Analysis analyze_program(const ProgramSession& session, const Case& params) {
  Analysis a;
  AnalyzeOptions options;
  for (const auto& [name, value] : params) options.params.emplace(name, value);
  auto r = session.analyze(options);
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
  char buf[400];
  // Whole numbers below 10^15 in plain digits: an int32 bound reads
  // -1000000, not the shortest form's -1e+06. Both read back the same.
  const bool whole = v == std::trunc(v) && std::fabs(v) < 1e15;
  auto res = whole ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed) : std::to_chars(buf, buf + sizeof buf, v);
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
  // Core's replay loop (runtime/event_log.h); per-node values of every step
  // for the graph and "jump to change" within a memory budget.
  EventLogOptions opts;
  opts.skip_events = skip_events;
  opts.progress = progress;
  opts.trace_budget = program.nodes.size() <= 20000 ? std::size_t{20'000'000} : 0;
  EventLogReplay log = replay_event_text(*rt, events_text, events_name, opts);
  r.steps.reserve(log.steps.size());
  for (auto& s : log.steps) {
    StepRecord rec;
    rec.line = static_cast<int>(s.line);
    for (const auto& [k, v] : s.inputs) rec.inputs[k] = v;
    rec.outputs = std::move(s.result.outputs);
    rec.state = std::move(s.result.state);
    rec.values = std::move(s.values);
    fill_known_values(program, {}, rec.values);  // the runtime runs with the stored parameter values
    r.steps.push_back(std::move(rec));
  }
  r.error = std::move(log.error);
  return r;
}

Result<std::string> snapshot_text(const Program& program, const std::optional<SnapshotPoint>& at) {
  // The runtime writes the snapshot (no second writer here); without a
  // point it holds the program's initial state.
  auto rt = Runtime::create(program, at && at->max_steps ? at->max_steps : Runtime::kDefaultMaxSteps);
  if (!rt.ok()) return rt.error();
  if (!at) return rt->snapshot_text();
  auto moved = rt->at(at->state, at->steps);
  if (!moved.ok()) return moved.error();
  return moved->snapshot_text();
}

Result<SnapshotInfo> snapshot_info(const std::string& text) {
  auto rt = Runtime::restore_text(text);
  if (!rt.ok()) return rt.error();
  return SnapshotInfo{std::make_shared<const Program>(rt->program()), rt->steps()};
}

std::string outcome_text(const Outcome& o) {
  if (o.raised) return "error: " + o.error;
  std::string s;
  for (const auto& [k, v] : o.outputs) s += (s.empty() ? "" : ", ") + k + " = " + format_number(v);
  return s;
}

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

VerifyResult verify_source(const std::string& source, const std::string& filename, const std::string& function,
                           const VerifySettings& settings, Progress* progress) {
  VerifyResult v;
  std::string why;
  if (!python_reference_available(&why)) {
    v.error = make_error("verification needs the CPython reference: " + why);
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
  workbench::SourceReference spec;
  spec.source = source;
  spec.filename = filename;
  spec.function = c.function;
  spec.reference_path = settings.reference_path;
  spec.reference_function = settings.reference_function;
  auto ref = workbench::python_reference(spec);
  if (!ref.ok()) {
    v.error = ref.error();
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
  const ProgramSession session(c.program);
  auto rep = workbench::verify(session, **ref, vo);
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

Result<std::string> export_optimized(const ProgramSession& session) {
  auto o = session.optimize();
  if (!o.ok()) return o.error();
  return save_artifact(o->program);
}

Result<std::string> export_target(const ProgramSession& session, const std::string& target) {
  tc::emit::TargetOptions options;
  options.spirv_text_without_tools = true;  // assembly text when the binary cannot be assembled
  auto out = workbench::emit(session, target, options);
  if (!out.ok()) return out.error();
  return std::move(out->bytes);
}

Result<CSourcePair> export_c(const ProgramSession& session, const std::string& source_path) {
  // As `emit --target c -o FILE.c`: the prefix from the file's stem, FILE.h beside it, included by name.
  tc::emit::TargetOptions options;
  options.c_source_path = source_path;
  auto code = workbench::emit(session, "c", options);
  if (!code.ok()) return code.error();
  return CSourcePair{std::move(code->bytes), std::move(code->header), std::move(code->header_path)};
}

std::vector<std::string> export_targets() {
  return {"wgsl", "spirv", "wasm"};
}

}  // namespace views
}  // namespace tc
