#include "views/engine.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

#include "base/atomic_file.h"
// The precompiled Qt headers define `emit` as a keyword macro; the engine's
// tc::emit namespace needs the plain word (this file emits no signals).
#undef emit
#include "emit/spirv.h"
#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"
#include "grad/gradients.h"
#include "ir/artifact.h"
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

CompileResult compile_source(const std::string& source, const std::string& filename, const std::string& function) {
  const auto t0 = std::chrono::steady_clock::now();
  CompileResult r;
  // One parse in core: functions, the chosen one, its domains (directives,
  // else float64 over the full range) and the program or the error.
  CompileOptions opts;
  opts.filename = filename;
  opts.function = function;
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
                   const std::map<std::string, double, std::less<>>& state) {
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
  auto res = ev->run(env, &r.trace);
  if (!res.ok()) {
    r.error = res.error();
    return r;
  }
  r.ok = true;
  r.outputs = res->outputs;
  return r;
}

namespace {

// Per-node adjoints through the public gradient API: every node k becomes
// add(k', p_k) with a fresh differentiable parameter p_k = 0, so
// d(output)/d(p_k) is exactly the adjoint of node k. Values are unchanged
// (x + 0 == x; only the sign of a zero can differ, which nothing observes).
struct AdjointProgram {
  Program program;
  std::vector<std::string> names;  // parameter name per original node
};

AdjointProgram adjoint_program(const Program& original) {
  AdjointProgram a;
  Program& p = a.program;
  p.semantics = original.semantics;
  p.dtype = original.dtype;
  p.surrogate = original.surrogate;
  p.temperature = original.temperature;
  const std::size_t n = original.nodes.size();
  p.nodes.reserve(3 * n);
  a.names.reserve(n);
  auto wrapped = [](NodeId k) { return static_cast<NodeId>(3 * k + 2); };
  for (const auto& node : original.nodes) {
    const NodeId base = static_cast<NodeId>(p.nodes.size());
    Node param;
    param.id = base;
    param.op = Op::Parameter;
    param.name = "__adjoint_" + std::to_string(node.id);
    param.value = 0.0;
    param.differentiable = true;
    a.names.push_back(param.name);
    p.nodes.push_back(std::move(param));
    Node copy = node;
    copy.id = base + 1;
    for (auto& arg : copy.args) arg = wrapped(arg);
    // Only the probes are reported: the original leaves stop being differentiable.
    if (copy.op == Op::Input || copy.op == Op::Parameter) copy.differentiable = false;
    p.nodes.push_back(std::move(copy));
    Node add;
    add.id = base + 2;
    add.op = Op::Add;
    add.args = {base + 1, base};
    add.location = node.location;
    p.nodes.push_back(std::move(add));
  }
  for (const auto& [name, id] : original.outputs) p.outputs.emplace_back(name, wrapped(id));
  for (const auto& [sid, next] : original.updates) p.updates.emplace_back(3 * sid + 1, wrapped(next));
  return a;
}

// Messages name nodes of the probe program; translate "node 3k+r (op)" back to "node k (op)".
std::string translate_node_ids(std::string msg) {
  static const std::regex re(R"(node (\d+) )");
  std::string out;
  std::sregex_iterator it(msg.begin(), msg.end(), re), end;
  std::size_t last = 0;
  for (; it != end; ++it) {
    out += msg.substr(last, static_cast<std::size_t>(it->position()) - last);
    out += "node " + std::to_string(std::stoll((*it)[1].str()) / 3) + " ";
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + msg.substr(last);
}

}  // namespace

NodeGradients node_gradients(const Program& program, const Case& inputs, std::size_t output, Semantics semantics,
                             double temperature) {
  NodeGradients g;
  if (output >= program.outputs.size()) {
    g.error = make_error("the program has no output to differentiate");
    return g;
  }
  // Triple-size probe programs get expensive: beyond this, show no per-node gradients.
  if (program.nodes.size() > 60000) {
    g.error = make_error("per-node gradients are shown for circuits up to 60,000 nodes");
    return g;
  }
  g.available = true;
  const AdjointProgram probe = adjoint_program(program);
  GradOptions opts;
  opts.output = program.outputs[output].first;
  opts.semantics = semantics;
  if (temperature > 0 && std::isfinite(temperature)) opts.temperature = temperature;
  Env env;
  for (const auto& [k, v] : inputs) env.inputs[k] = v;
  auto r = tc::gradients(probe.program, env, opts);
  if (!r.ok()) {
    Diagnostic d = r.error();
    d.message = translate_node_ids(d.message);
    if (d.node) d.node = *d.node / 3;
    g.error = d;
    return g;
  }
  g.ok = true;
  g.adjoint.assign(program.nodes.size(), std::numeric_limits<double>::quiet_NaN());
  std::map<std::string_view, std::size_t> index;
  for (std::size_t k = 0; k < probe.names.size(); ++k) index.emplace(probe.names[k], k);
  for (const auto& [name, d] : r->gradients) {
    if (auto it = index.find(name); it != index.end()) g.adjoint[it->second] = d;
  }
  for (const auto& node : program.nodes) {
    if ((node.op == Op::Input || node.op == Op::Parameter) && node.differentiable)
      g.inputs[node.name] = g.adjoint[static_cast<std::size_t>(node.id)];
  }
  return g;
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

std::string format_number(double v) {
  if (std::isnan(v)) return "—";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string format_short(double v) {
  if (!std::isfinite(v)) return format_number(v);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string node_text(const Program& program, NodeId id) {
  const Node& n = program.nodes[static_cast<std::size_t>(id)];
  std::ostringstream os;
  os << op_name(n.op);
  switch (n.op) {
    case Op::Input:
      os << ' ' << n.name;
      if (n.domain) os << " : " << n.domain->to_string();
      break;
    case Op::Parameter:
      os << ' ' << n.name << " = " << format_number(n.value);
      break;
    case Op::Constant:
      os << ' ' << format_number(n.value);
      break;
    case Op::State:
      os << ' ' << n.name << " = " << format_number(n.value);
      if (n.domain) os << " : " << n.domain->to_string();
      break;
    case Op::Call:
      os << ' ' << n.name;
      break;
    case Op::Affine:
    case Op::SparseAffine: {
      os << " [";
      for (std::size_t i = 0; i < n.coefficients.size(); ++i) os << (i ? ", " : "") << format_number(n.coefficients[i]);
      os << "]";
      if (n.bias) os << " + " << format_number(*n.bias);
      if (n.op == Op::SparseAffine) {
        os << " at [";
        for (std::size_t i = 0; i < n.indices.size(); ++i) os << (i ? ", " : "") << n.indices[i];
        os << "]";
      }
      break;
    }
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Neg: case Op::FloorDiv: case Op::Mod:
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: case Op::Select:
    case Op::Relu: case Op::Sigmoid: case Op::Gather: case Op::GatherOneHot:
      break;
  }
  for (std::size_t i = 0; i < n.args.size(); ++i) os << (i ? ", %" : " %") << n.args[i];
  return os.str();
}

Disassembly disassemble(const Program& program, const std::vector<int>& layers) {
  Disassembly d;
  std::ostringstream os;
  os << "; semantics " << to_string(program.semantics) << ", dtype " << to_string(program.dtype) << ", "
     << program.nodes.size() << " nodes\n";
  d.first_node_line = 1;
  for (const auto& n : program.nodes) {
    std::string lhs = "%" + std::to_string(n.id);
    lhs.resize(std::max<std::size_t>(lhs.size(), 6), ' ');
    std::string body = node_text(program, n.id);
    std::string line = lhs + " = " + body;
    if (line.size() < 44) line.resize(44, ' ');
    line += "  ; L" + std::to_string(layers.empty() ? 0 : layers[static_cast<std::size_t>(n.id)]);
    if (n.location) line += "  @" + std::to_string(n.location->line) + ":" + std::to_string(n.location->column);
    os << line << '\n';
  }
  for (const auto& [name, id] : program.outputs) os << "output " << name << " = %" << id << '\n';
  for (const auto& [s, next] : program.updates) os << "update %" << s << " <- %" << next << '\n';
  d.text = os.str();
  return d;
}

namespace {
std::string dot_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o;
}
}  // namespace

std::string to_dot(const Program& program, const std::vector<int>& layers, const std::vector<NodeId>* subset) {
  std::vector<NodeId> ids;
  if (subset) {
    ids = *subset;
  } else {
    ids.resize(program.nodes.size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<NodeId>(i);
  }
  std::vector<char> in(program.nodes.size(), 0);
  for (NodeId id : ids) in[static_cast<std::size_t>(id)] = 1;
  std::ostringstream os;
  os << "digraph tensorcode {\n  rankdir=TB; nodesep=0.18; ranksep=0.4;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#f4f6fa\", fontname=\"DejaVu Sans\", fontsize=10,"
     << " width=1.3, height=0.52, fixedsize=true];\n";
  std::map<int, std::vector<NodeId>> by_layer;
  for (NodeId id : ids) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    std::string label = "#" + std::to_string(id) + " " + std::string(op_name(n.op));
    if (!n.name.empty()) label += " " + n.name;
    if (n.op == Op::Constant) label += " " + format_number(n.value);
    os << "  n" << id << " [label=\"" << dot_escape(label) << "\"];\n";
    by_layer[layers.empty() ? 0 : layers[static_cast<std::size_t>(id)]].push_back(id);
  }
  for (NodeId id : ids) {
    for (NodeId a : program.nodes[static_cast<std::size_t>(id)].args) {
      if (in[static_cast<std::size_t>(a)]) os << "  n" << a << " -> n" << id << ";\n";
    }
  }
  for (const auto& [layer, members] : by_layer) {
    os << "  { rank=same;";
    for (NodeId id : members) os << " n" << id << ";";
    os << " }\n";
  }
  for (const auto& [name, id] : program.outputs) {
    if (!in[static_cast<std::size_t>(id)]) continue;
    os << "  \"out_" << dot_escape(name) << "\" [shape=plaintext, style=\"\", label=\"" << dot_escape(name) << "\"];\n";
    os << "  n" << id << " -> \"out_" << dot_escape(name) << "\" [style=dashed];\n";
  }
  os << "}\n";
  return os.str();
}

Replay replay_events(const Program& program, const std::string& snapshot_text, const std::string& events_text,
                     const std::string& events_name, Progress* progress) {
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

Result<std::shared_ptr<const Program>> snapshot_program(const std::string& text) {
  auto rt = Runtime::restore_text(text);
  if (!rt.ok()) return rt.error();
  return std::make_shared<const Program>(rt->program());
}

namespace {
std::string outcome_text(const Outcome& o) {
  if (o.raised) return "error: " + o.error;
  std::string s;
  for (const auto& [k, v] : o.outputs) s += (s.empty() ? "" : ", ") + k + " = " + format_number(v);
  return s;
}
}  // namespace

VerifyResult verify_source(const std::string& source, const std::string& filename, const std::string& function,
                           const std::vector<InputSpec>&, Progress* progress) {
  VerifyResult v;
  std::string why;
  if (!python_reference_available(&why)) {
    v.error = make_error("verification needs the embedded CPython: " + why);
    return v;
  }
  v.available = true;
  CompileResult c = compile_source(source, filename, function);
  if (!c.program) {
    v.error = c.diagnostics.empty() ? make_error("the source does not compile") : c.diagnostics.front();
    for (const auto& d : c.diagnostics)
      if (d.severity == Severity::Error) v.error = d;
    return v;
  }
  PythonReferenceOptions ro;
  ro.source = source;
  ro.filename = filename;
  ro.function = c.function;
  auto ref = make_python_reference(ro);
  if (!ref.ok()) {
    v.error = ref.error();
    return v;
  }
  VerifyOptions vo;
  vo.progress = progress;
  auto rep = tc::verify(*c.program, **ref, vo);
  if (!rep.ok()) {
    v.error = rep.error();
    return v;
  }
  v.ok = true;
  v.cases = rep->cases;
  v.exhaustive = rep->exhaustive;
  v.passed = rep->passed;
  for (const auto& m : rep->mismatches) {
    VerifyMismatch mm;
    for (const auto& [k, val] : m.inputs) mm.inputs[k] = val;
    mm.circuit = outcome_text(m.circuit);
    mm.reference = outcome_text(m.reference);
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
