// CoreProgram: a tc::Program as the TypeScript Program's native handle (program.h).
#include "program.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "emit/wasm_emitter.h"
#include "codegen/c_emitter.h"
#include "emit/onnx_emitter.h"
#include "emit/wgsl_emitter.h"
#include "frontend/compile.h"
#include "options/binding_options.h"
#include "grad/gradients.h"
#include "ir/artifact.h"

namespace tc::wasm {

val CoreProgram::load(const std::string& text) {
  auto p = load_artifact(text);
  // Artifact locations point into the Python source, not into this text.
  if (!p) return error_value("artifact", p.error(), /*show_location=*/false);
  set(std::move(*p));
  return ok_value();
}

namespace {

/// The error class of a refused compile option, as before core's table:
/// a value the compiler cannot use (a domain, a choice, a temperature) is a
/// CompileError, a malformed argument (a name, a count, a flag) an ArgumentError.
const char* refusal_kind(options::OptionKind kind) {
  switch (kind) {
    case options::OptionKind::Domains:
    case options::OptionKind::Choice:
    case options::OptionKind::Positive: return "compile";
    default: return "argument";
  }
}

/// A compile option as core's option layer reads it: scalars as themselves,
/// inputs as an object of their values; a count checked here first so its
/// message spells the number as JavaScript does ("got 1000000000000", "got NaN").
Result<nlohmann::json> option_value(const options::OptionSpec& spec, const std::string& key, const val& v) {
  if (spec.kind == options::OptionKind::Domains && v.typeOf().as<std::string>() == "object" && !v.isNull() &&
      !val::global("Array").call<bool>("isArray", v)) {
    nlohmann::json inputs = nlohmann::json::object();
    for (const std::string& name : keys_of(v)) inputs[name] = option_json(v[name]);
    return inputs;
  }
  if (spec.kind == options::OptionKind::Count) {
    auto n = integer_option(v, key, static_cast<double>(spec.lo), static_cast<double>(spec.hi));
    if (!n) return n.error();
    return nlohmann::json(static_cast<std::uint64_t>(*n));
  }
  return option_json(v);
}

}  // namespace

val CoreProgram::compile(const std::string& source, const val& opts) {
  // Every option of core's table by its camelCase name, read and checked by
  // core; the settings given win over the source's `# tensorcode: compile` line.
  options::CompileRequest request;
  request.options.hints = HintSpelling::TypeScript;  // advice says {maxNodes: N}, not --max-nodes N
  for (const options::OptionSpec& spec : options::option_table()) {
    const std::string key = options::spelled(spec, options::KeySpelling::Camel);
    if (!given(opts, key.c_str())) continue;
    auto value = option_value(spec, key, opts[key]);
    Status read = value ? options::read_option(spec, *value, options::KeySpelling::Camel, request) : Status(value.error());
    if (!read) return error_value(refusal_kind(spec.kind), read.error());
  }
  auto resolved = request.for_source(source);
  if (!resolved) return error_value("compile", resolved.error());
  const CompileOptions& o = *resolved;
  auto compiled = compile_python(source, o);
  if (!compiled) return error_value("compile", compiled.error());
  set(std::move(compiled->program));
  source_file_ = o.filename;
  val warnings = val::array();
  for (const Diagnostic& w : compiled->warnings) warnings.call<void>("push", w.format());
  return ok_value(warnings);
}

void CoreProgram::bind_from(const CoreProgram& other, const val& spec) {
  set(other.program(), other.source_file_, bindings_from(spec));
}

val CoreProgram::info() const {
  val o = val::object();
  o.set("dtype", std::string(to_string(program().dtype)));
  o.set("semantics", std::string(to_string(program().semantics)));
  o.set("surrogate", std::string(to_string(program().surrogate)));
  o.set("temperature", program().temperature);
  o.set("nodes", program().nodes.size());
  val inputs = val::array(), params = val::array(), states = val::array(), outputs = val::array();
  for (const Node& n : program().nodes) {
    if (n.op == Op::Input) {
      val i = val::object();
      i.set("name", n.name);
      if (n.domain) i.set("domain", domain_value(*n.domain));
      i.set("differentiable", n.differentiable);
      inputs.call<void>("push", i);
    } else if (n.op == Op::Parameter) {
      val p = val::object();
      p.set("name", n.name);
      p.set("value", n.value);
      p.set("differentiable", n.differentiable);
      params.call<void>("push", p);
    } else if (n.op == Op::State) {
      val s = val::object();
      s.set("name", n.name);
      s.set("initial", n.value);
      if (n.domain) s.set("domain", domain_value(*n.domain));
      states.call<void>("push", s);
    }
  }
  for (const auto& [name, id] : program().outputs) outputs.call<void>("push", name);
  o.set("inputs", inputs);
  o.set("parameters", params);
  o.set("states", states);
  o.set("outputs", outputs);
  o.set("hasCalls", program().has_calls());
  return o;
}

val CoreProgram::plan_status() {
  auto status = session_.plan_status();
  if (!status) return error_value("EvaluationError", status.error());
  const PlanStatus& st = *status;
  val o = val::object();
  o.set("summary", st.summary);
  o.set("compiled", st.compiled);
  o.set("compiling", st.compiling);
  o.set("reason", st.reason);
  o.set("isa", st.isa);
  o.set("cacheHit", st.cache_hit);
  o.set("compileSeconds", st.compile_seconds);
  o.set("compiledCases", static_cast<double>(st.compiled_cases));
  o.set("handedBack", static_cast<double>(st.handed_back));
  return ok_value(o);
}

val CoreProgram::run(const val& inputs, const val& params, const val& state) {
  auto env = make_env(inputs, params, state);
  if (!env) return error_value("evaluation", env.error());
  auto ev = evaluator();
  if (!ev) return eval_error(ev.error());
  auto r = (*ev)->run(*env);
  if (!r) return eval_error(r.error());
  val o = val::object();
  o.set("outputs", number_map(output_names_, r->outputs));
  // Every state name: updated ones take their new value, the rest keep theirs.
  val next = val::object();
  for (const Node& n : program().nodes)
    if (n.op == Op::State) {
      auto it = env->state.find(n.name);
      next.set(n.name, it != env->state.end() ? it->second : n.value);
    }
  for (std::size_t u = 0; u < program().updates.size() && u < r->next_state.size(); ++u)
    next.set(program().nodes[static_cast<std::size_t>(program().updates[u].first)].name, r->next_state[u]);
  o.set("nextState", next);
  return ok_value(o);
}

val CoreProgram::run_values(const val& values) {
  auto ev = evaluator();
  if (!ev) return eval_error(ev.error());
  const auto& ids = (*ev)->input_ids();
  if (values["length"].as<std::size_t>() != ids.size())
    return error_value("evaluation", "expected " + std::to_string(ids.size()) + " input values");
  std::vector<double> v = emscripten::convertJSArrayToNumberVector<double>(values);
  Env env;
  for (std::size_t k = 0; k < ids.size(); ++k) env.inputs.emplace(program().nodes[static_cast<std::size_t>(ids[k])].name, v[k]);
  auto r = (*ev)->run(env);
  if (!r) return eval_error(r.error());
  val view(emscripten::typed_memory_view(r->outputs.size(), r->outputs.data()));
  return val::global("Float64Array").new_(view);
}

double CoreProgram::fast_address() {
  if (fast_slots_.empty() && fast_values_.empty()) {
    auto ev = evaluator();
    if (!ev) return 0;
    const auto& ids = (*ev)->input_ids();
    fast_env_ = Env{};
    for (NodeId id : ids) fast_env_.inputs.emplace(program().nodes[static_cast<std::size_t>(id)].name, 0.0);
    for (NodeId id : ids) fast_slots_.push_back(&fast_env_.inputs.find(program().nodes[static_cast<std::size_t>(id)].name)->second);
    fast_values_.assign(std::max<std::size_t>({ids.size(), output_names_.size(), 1}), 0.0);
  }
  return static_cast<double>(reinterpret_cast<std::uintptr_t>(fast_values_.data()));
}

int CoreProgram::run_fast() {
  auto ev = evaluator();
  if (!ev) {
    fast_error_ = eval_error(ev.error());
    return 1;
  }
  for (std::size_t k = 0; k < fast_slots_.size(); ++k) *fast_slots_[k] = fast_values_[k];
  auto r = (*ev)->run(fast_env_);
  if (!r) {
    fast_error_ = eval_error(r.error());
    return 1;
  }
  std::copy(r->outputs.begin(), r->outputs.end(), fast_values_.begin());
  return 0;
}

double CoreProgram::gradients_fast(const std::string& output) {
  for (std::size_t k = 0; k < fast_slots_.size(); ++k) *fast_slots_[k] = fast_values_[k];
  GradOptions g;
  g.output = output;
  g.bindings = bindings_.get();
  auto r = session_.gradients(fast_env_, g);
  if (!r) {
    fast_error_ = eval_error(r.error());
    return 0;
  }
  fast_grads_.resize(1 + r->gradients.size());
  fast_grad_names_.resize(r->gradients.size());
  fast_grads_[0] = r->result;
  for (std::size_t k = 0; k < r->gradients.size(); ++k) {
    fast_grads_[1 + k] = r->gradients[k].second;
    if (fast_grad_names_[k] != r->gradients[k].first) fast_grad_names_[k] = r->gradients[k].first;
  }
  return static_cast<double>(reinterpret_cast<std::uintptr_t>(fast_grads_.data()));
}

val CoreProgram::fast_gradient_names() const {
  val a = val::array();
  for (const std::string& n : fast_grad_names_) a.call<void>("push", n);
  return a;
}

val CoreProgram::run_batch(const val& columns, const val& count_v, const val& params, const val& state, const val& dtype) {
  auto count_d = integer_option(count_v, "the case count", 0, kSizeMax);
  if (!count_d) return error_value("argument", count_d.error());
  const std::size_t count = static_cast<std::size_t>(*count_d);
  std::optional<Dtype> dt;
  if (!dtype.isUndefined() && !dtype.isNull() && !dtype.isString())
    return error_value("argument", "dtype must be float64 or float32, got " + dtype.typeOf().as<std::string>());
  if (dtype.isString()) {
    auto d = dtype_arg(dtype);
    if (!d) return error_value("evaluation", d.error());
    dt = *d;
  }
  auto ev = evaluator(dt);
  if (!ev) return eval_error(ev.error());
  // One Float64Array of `count` values per input, in input order, each
  // copied once into the heap (typed-array set, no per-value conversion).
  const std::size_t k = (*ev)->input_ids().size();
  if (!columns.isArray() || columns["length"].as<std::size_t>() != k)
    return error_value("evaluation", "batch: expected an array of " + std::to_string(k) + " input columns");
  std::vector<double> own;
  std::vector<double>& data = in_batch_ ? own : batch_inputs_;
  data.resize(k * count);
  for (std::size_t i = 0; i < k; ++i) {
    val col = columns[i];
    if (!col.instanceof(val::global("Float64Array")) || col["length"].as<std::size_t>() != count)
      return error_value("evaluation", "batch: input column " + std::to_string(i) + " is not a Float64Array of " +
                                           std::to_string(count) + " values");
    val(emscripten::typed_memory_view(count, data.data() + i * count)).call<void>("set", col);
  }
  auto fixed = make_env(val::undefined(), params, state);
  if (!fixed) return error_value("evaluation", fixed.error());
  std::vector<std::span<const double>> cols;
  for (std::size_t i = 0; i < k; ++i) cols.emplace_back(data.data() + i * count, count);
  BatchResult out;
  Status s = ok_status();
  {
    // Also when the batch throws (a resource error): the next one may use the buffer again.
    struct Outer {
      CoreProgram& self;
      bool outer;
      ~Outer() {
        if (!outer) return;
        self.in_batch_ = false;
        // Up to 8 MB stay for the next batch; a larger one gives its memory back.
        constexpr std::size_t kKeptBatchValues = std::size_t{1} << 20;
        if (self.batch_inputs_.capacity() > kKeptBatchValues) std::vector<double>().swap(self.batch_inputs_);
      }
    } guard{*this, !in_batch_};
    in_batch_ = true;
    s = (*ev)->run_batch(cols, count, *fixed, out);
  }
  if (!s) return eval_error(s.error());
  val outs = val::array();
  for (const auto& column : out.outputs) {
    val view(emscripten::typed_memory_view(column.size(), column.data()));
    outs.call<void>("push", val::global("Float64Array").new_(view));
  }
  val failed = bytes_value(out.failed);
  val errors = val::array();
  for (const auto& [index, d] : out.errors) {
    val e = val::object();
    e.set("index", index);
    e.set("error", eval_error(d)["error"]);
    errors.call<void>("push", e);
  }
  val o = val::object();
  o.set("outputs", outs);
  o.set("failed", failed);
  o.set("errors", errors);
  return ok_value(o);
}

val CoreProgram::gradients(const val& inputs, const val& params, const val& state, const val& opts) {
  auto env = make_env(inputs, params, state);
  if (!env) return error_value("evaluation", env.error());
  GradOptions g;
  if (given(opts, "output")) {
    auto name = string_option(opts["output"], "output");
    if (!name) return error_value("argument", name.error());
    g.output = *name;
  }
  if (given(opts, "semantics")) {
    auto s = semantics_arg(opts["semantics"]);
    if (!s) return error_value("evaluation", s.error());
    g.semantics = *s;
  }
  if (given(opts, "temperature")) {
    auto t = temperature_arg(opts["temperature"]);
    if (!t) return error_value("evaluation", t.error());
    g.temperature = *t;
  }
  g.bindings = bindings_.get();
  auto r = session_.gradients(*env, g);
  if (!r) return eval_error(r.error());
  val grads = val::object();
  for (const auto& [name, d] : r->gradients) grads.set(name, d);
  val o = val::object();
  o.set("result", r->result);
  o.set("gradients", grads);
  return ok_value(o);
}

val CoreProgram::optimize_into(CoreProgram& out, const val& opts) const {
  OptimizeOptions o;
  for (auto [key, slot] : {std::pair<const char*, bool*>{"fold", &o.fold}, {"pack", &o.pack}, {"sparse", &o.pack_options.sparse}}) {
    if (!given(opts, key)) continue;
    auto b = bool_option(opts[key], key);
    if (!b) return error_value("argument", b.error());
    *slot = *b;
  }
  auto r = session_.optimize(o);
  if (!r) return error_value("pass", r.error());
  out.set(std::move(r->program), source_file_);
  val stats = val::object();
  stats.set("nodesBefore", r->stats.nodes_before);
  stats.set("nodesAfter", r->stats.nodes_after);
  return ok_value(stats);
}

val CoreProgram::freeze_into(CoreProgram& out, const val& names) const {
  auto r = tc::freeze(program(), string_list(names));
  if (!r) return error_value("pass", r.error());
  out.set(std::move(*r), source_file_);
  return ok_value();
}

val CoreProgram::schedule() const {
  auto s = session_.schedule();
  if (!s) return error_value("pass", s.error());
  val layers = val::array();
  for (const auto& layer : s->layers) {
    val l = val::array();
    for (NodeId id : layer) l.call<void>("push", id);
    layers.call<void>("push", l);
  }
  return ok_value(layers);
}

val CoreProgram::analyze(const val& opts) const {
  AnalyzeOptions o;
  if (given(opts, "params")) {
    auto p = named_numbers(opts["params"], "parameter");
    if (!p) return error_value("pass", p.error());
    o.params = std::move(*p);
  }
  if (given(opts, "freeParameters")) {
    auto b = bool_option(opts["freeParameters"], "freeParameters");
    if (!b) return error_value("argument", b.error());
    o.free_parameters = *b;
  }
  auto a = session_.analyze(o);
  if (!a) return error_value("pass", a.error());
  auto end = [](double v) { return std::isinf(v) ? val::null() : val(v); };
  auto interval = [&](const Interval& i) {
    val pair = val::array();
    pair.call<void>("push", end(i.lo));
    pair.call<void>("push", end(i.hi));
    return pair;
  };
  val nodes = val::array();
  for (const Node& n : program().nodes) {
    val j = val::object();
    j.set("id", n.id);
    j.set("op", std::string(op_name(n.op)));
    j.set("interval", interval(a->intervals[static_cast<std::size_t>(n.id)]));
    nodes.call<void>("push", j);
  }
  val outputs = val::object();
  for (const auto& [name, id] : program().outputs) outputs.set(name, interval(a->intervals[static_cast<std::size_t>(id)]));
  val warnings = val::array();
  for (const AnalysisWarning& w : a->warnings) {
    val j = val::object();
    j.set("node", w.node);
    j.set("message", w.message);
    warnings.call<void>("push", j);
  }
  val result = val::object();
  result.set("nodes", nodes);
  result.set("outputs", outputs);
  result.set("warnings", warnings);
  return ok_value(result);
}

val CoreProgram::emit_wasm() const {
  auto bytes = emit::emit_wasm(program());
  if (!bytes) return error_value("emit", bytes.error());
  return ok_value(bytes_value(*bytes));
}

val CoreProgram::emit_onnx() const {
  auto bytes = emit::emit_onnx(program());
  if (!bytes) return error_value("emit", bytes.error());
  return ok_value(bytes_value(*bytes));
}

val CoreProgram::emit_c(const std::string& name, const std::string& header_file) const {
  codegen::CExportOptions options;
  options.name = name;
  options.header_file = header_file;
  auto c = codegen::emit_c(program(), options);
  if (!c) return error_value("emit", c.error());
  val o = val::object();
  o.set("source", c->source);
  o.set("header", c->header);
  return ok_value(o);
}

val CoreProgram::emit_wgsl() const {
  auto code = emit::emit_wgsl(program());
  if (!code) return error_value("emit", code.error());
  return ok_value(val(*code));
}

void CoreProgram::set(Program p, std::optional<std::string> source_file, std::shared_ptr<Bindings> bindings) {
  source_file_ = std::move(source_file);
  bindings_ = std::move(bindings);
  session_ = ProgramSession(std::move(p), bindings_);
  fast_values_.clear();
  fast_slots_.clear();
  fast_env_ = Env{};
  fast_grads_.clear();
  fast_grad_names_.clear();
  output_names_.clear();
  for (const auto& [name, id] : program().outputs) output_names_.push_back(name);
}

Result<Env> CoreProgram::make_env(const val& inputs, const val& params, const val& state) const {
  Env env;
  auto i = named_numbers(inputs, "input");
  if (!i) return i.error();
  auto p = named_numbers(params, "parameter");
  if (!p) return p.error();
  auto s = named_numbers(state, "state");
  if (!s) return s.error();
  env.inputs = std::move(*i);
  env.params = std::move(*p);
  env.state = std::move(*s);
  return env;
}

Result<const Evaluator*> CoreProgram::evaluator(std::optional<Dtype> dtype) {
  auto ev = session_.evaluator(dtype);
  if (!ev) return ev.error();
  return *ev;
}

val CoreProgram::eval_error(const Diagnostic& d) const {
  Diagnostic copy = d;
  if (source_file_) copy.file = *source_file_;
  return error_value("evaluation", copy, source_file_.has_value());
}

}  // namespace tc::wasm
