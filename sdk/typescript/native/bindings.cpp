// Embind bindings of the engine for the TypeScript package. The classes here
// are thin: they hold core objects and translate between JavaScript values
// and the core's types. Nothing is computed here that the core computes.
//
// Every fallible method returns an object, {value: ...} on success or
// {error: {kind, message, detail, line, column, node}} on failure: the core
// reports errors as values, and the TypeScript layer turns {error} into a
// thrown Error subclass. A C++ exception (std::bad_alloc when the heap is
// full, std::length_error, anything else) never leaves a method: every
// method is registered through guarded<> below, which throws {error: ...}
// (kind "resource" or "internal") as a JavaScript value instead, and the
// TypeScript layer turns that into a TensorcodeError too. Without it,
// Emscripten hands JavaScript the exception's address as a bare number.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <type_traits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"
#include "eval/evaluator.h"
#include "frontend/compile.h"
#include "grad/gradients.h"
#include "ir/artifact.h"
#include "ir/builder.h"
#include "ir/op.h"
#include "ir/program.h"
#include "passes/analyze.h"
#include "passes/optimize.h"
#include "passes/schedule.h"
#include "runtime/runtime.h"

using emscripten::val;

namespace tc::wasm {
namespace {

// ---- results

/// `show_location`: put "FILE:LINE:COL: " in the message. Off where the
/// location points into a Python source this text did not come from (an
/// artifact's nodes), as the CLI does; line and column are reported anyway.
val error_value(std::string_view kind, const Diagnostic& d, bool show_location = true) {
  val e = val::object();
  e.set("kind", std::string(kind));
  e.set("detail", d.message);
  const bool located = d.loc && d.loc->valid();
  Diagnostic shown = d;
  if (!located || !show_location) shown.loc.reset();
  if (shown.loc && shown.file.empty()) shown.file = "<source>";
  std::string text = shown.format();
  // format() prefixes "error: " when there is no location; a thrown Error
  // already says it is one.
  if (!shown.loc && text.rfind("error: ", 0) == 0) text = text.substr(7);
  e.set("message", text);
  if (located) {
    e.set("line", d.loc->line);
    e.set("column", d.loc->column);
  }
  if (d.node) e.set("node", *d.node);
  val r = val::object();
  r.set("error", e);
  return r;
}

val error_value(std::string_view kind, const std::string& message) { return error_value(kind, make_error(message)); }

// ---- C++ exceptions

std::string heap_megabytes() {
  const double mb = static_cast<double>(emscripten_get_heap_size()) / (1024.0 * 1024.0);
  return std::to_string(static_cast<long long>(mb + 0.5));
}

/// The message for an exception caught at the boundary: what the user can do about it.
std::pair<std::string, std::string> exception_error() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return {"resource", "out of memory: the WebAssembly heap (" + heap_megabytes() +
                            " MB) cannot hold this; objects not disposed stay allocated until they are "
                            "garbage-collected, so call dispose() on Programs, Runtimes and Builders you no longer need"};
  } catch (const std::length_error& e) {
    return {"resource", std::string("too large for the WebAssembly build (") + e.what() + ")"};
  } catch (const std::exception& e) {
    return {"internal", std::string("internal error: ") + e.what()};
  } catch (...) {
    return {"internal", "internal error: an unknown C++ exception"};
  }
}

[[noreturn]] void throw_error(std::string_view kind, const std::string& message);

/// `Method` with every C++ exception turned into an error (see the top).
template <auto Method>
struct guarded;

template <class R, class F>
R guard_call(F&& f) {
  std::pair<std::string, std::string> e;
  try {
    return f();
  } catch (...) {
    e = exception_error();
  }
  // A static: the JavaScript throw below skips this frame's destructors.
  static std::pair<std::string, std::string> pending;
  pending = std::move(e);
  throw_error(pending.first, pending.second);
}

template <class C, class R, class... A, R (C::*Method)(A...)>
struct guarded<Method> {
  static R call(C& self, A... args) {
    return guard_call<R>([&]() -> R { return (self.*Method)(std::forward<A>(args)...); });
  }
};
template <class C, class R, class... A, R (C::*Method)(A...) const>
struct guarded<Method> {
  static R call(const C& self, A... args) {
    return guard_call<R>([&]() -> R { return (self.*Method)(std::forward<A>(args)...); });
  }
};
template <class R, class... A, R (*Function)(A...)>
struct guarded<Function> {
  static R call(A... args) {
    return guard_call<R>([&]() -> R { return Function(std::forward<A>(args)...); });
  }
};

// ---- option numbers

/// The JavaScript spelling of a value, for messages.
std::string js_text(const val& v) {
  if (v.isString()) return "'" + v.as<std::string>() + "'";
  return val::global("String")(v).as<std::string>();
}

/// An integer option: a number, finite, integral, from lo to hi.
Result<double> integer_option(const val& v, const std::string& name, double lo, double hi) {
  auto text = [](double d) { return val::global("String")(val(d)).as<std::string>(); };
  const std::string range = "an integer from " + text(lo) + " to " + text(hi);
  if (!v.isNumber()) return make_error(name + " must be " + range + ", got " + v.typeOf().as<std::string>() + " " + js_text(v));
  const double d = v.as<double>();
  if (!std::isfinite(d) || d != std::floor(d) || d < lo || d > hi) return make_error(name + " must be " + range + ", got " + text(d));
  return d;
}

/// The largest count a std::size_t holds here (32 bits in WebAssembly).
constexpr double kSizeMax = static_cast<double>(std::numeric_limits<std::size_t>::max());

val ok_value(val v) {
  val r = val::object();
  r.set("value", v);
  return r;
}
val ok_value() { return ok_value(val::undefined()); }

/// Throws {error: {kind, message, detail}} into JavaScript. Called with no
/// C++ exception in flight; the strings live in statics because a
/// JavaScript throw skips the destructors of the frames it leaves.
[[noreturn]] void throw_error(std::string_view kind, const std::string& message) {
  static val thrown = val::undefined();
  thrown = error_value(kind, message);
  thrown.throw_();
}

// ---- conversions

std::vector<std::string> keys_of(const val& obj) {
  std::vector<std::string> out;
  if (obj.isUndefined() || obj.isNull()) return out;
  val keys = val::global("Object").call<val>("keys", obj);
  const unsigned n = keys["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(keys[i].as<std::string>());
  return out;
}

/// A JS object of numbers (true/false allowed) as a name -> value map.
Result<std::map<std::string, double, std::less<>>> named_numbers(const val& obj, const std::string& what) {
  std::map<std::string, double, std::less<>> out;
  if (obj.isUndefined() || obj.isNull()) return out;
  if (obj.typeOf().as<std::string>() != "object") return make_error(what + " must be an object of numbers");
  for (const std::string& k : keys_of(obj)) {
    val v = obj[k];
    double d;
    if (v.isNumber()) {
      d = v.as<double>();
    } else if (v.isTrue() || v.isFalse()) {
      d = v.isTrue() ? 1.0 : 0.0;
    } else {
      return make_error(what + " '" + k + "' must be a number, got " + v.typeOf().as<std::string>());
    }
    if (!std::isfinite(d)) return make_error(what + " '" + k + "' must be a finite number");
    out.emplace(k, d);
  }
  return out;
}

std::vector<std::string> string_list(const val& arr) {
  std::vector<std::string> out;
  if (arr.isUndefined() || arr.isNull()) return out;
  const unsigned n = arr["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(arr[i].as<std::string>());
  return out;
}

val number_map(const std::vector<std::string>& names, const std::vector<double>& values) {
  val o = val::object();
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) o.set(names[i], values[i]);
  return o;
}

val domain_value(const Domain& d) {
  val o = val::object();
  o.set("type", std::string(to_string(d.type)));
  if (d.min) o.set("min", *d.min);
  if (d.max) o.set("max", *d.max);
  o.set("text", d.to_string());
  return o;
}

/// A string option, or an error naming it (embind's own conversion would
/// throw a JavaScript BindingError through the C++ frames instead).
Result<std::string> string_option(const val& v, const std::string& name) {
  if (!v.isString()) return make_error(name + " must be a string, got " + v.typeOf().as<std::string>());
  return v.as<std::string>();
}
/// A boolean option: true or false only (embind would take any value's truthiness).
Result<bool> bool_option(const val& v, const std::string& name) {
  if (!v.isTrue() && !v.isFalse()) return make_error(name + " must be true or false, got " + v.typeOf().as<std::string>());
  return v.isTrue();
}

Result<Semantics> semantics_arg(const val& v) {
  if (!v.isString()) return make_error("semantics must be exact, relaxed or hybrid, got " + v.typeOf().as<std::string>());
  auto s = semantics_from(v.as<std::string>());
  if (!s) return make_error("semantics must be exact, relaxed or hybrid, got '" + v.as<std::string>() + "'");
  return *s;
}
Result<Dtype> dtype_arg(const val& v) {
  if (!v.isString()) return make_error("dtype must be float64 or float32, got " + v.typeOf().as<std::string>());
  auto d = dtype_from(v.as<std::string>());
  if (!d) return make_error("dtype must be float64 or float32, got '" + v.as<std::string>() + "'");
  return *d;
}
Result<Surrogate> surrogate_arg(const val& v) {
  if (!v.isString()) return make_error("surrogate must be sigmoid, got " + v.typeOf().as<std::string>());
  auto s = surrogate_from(v.as<std::string>());
  if (!s) return make_error("surrogate must be sigmoid, got '" + v.as<std::string>() + "'");
  return *s;
}
bool given(const val& o, const char* key) { return !o.isUndefined() && !o.isNull() && !o[key].isUndefined(); }

val bytes_value(const std::vector<std::uint8_t>& bytes) {
  // Copy out of the wasm heap: a view would be invalidated by memory growth.
  val view(emscripten::typed_memory_view(bytes.size(), bytes.data()));
  return val::global("Uint8Array").new_(view);
}

// ---- free functions

val parse_domain_js(const std::string& text) {
  auto d = parse_domain(text);
  if (!d) return error_value("domain", d.error());
  return ok_value(domain_value(*d));
}

/// Bytes the allocator holds for live objects, and the heap's size: what the
/// tests watch to find objects that are never freed.
val heap_stats_js() {
  const struct mallinfo m = mallinfo();
  val o = val::object();
  o.set("used", static_cast<double>(m.uordblks));
  o.set("size", static_cast<double>(emscripten_get_heap_size()));
  return o;
}

val op_names_js() {
  val a = val::array();
  for (int i = 0; i < kOpCount; ++i) a.call<void>("push", std::string(op_name(static_cast<Op>(i))));
  return a;
}

// ---- host bindings for call nodes

/// JavaScript functions as the engine's Bindings. `spec` is {name: {forward,
/// vjp?}}; the TypeScript layer wraps both so they never throw: a failure
/// comes back as {error: message} and is rethrown here as a C++ exception,
/// which the engine reports as "binding 'NAME' failed: MESSAGE".
std::vector<double> numbers_of(const val& v, const std::string& what) {
  if (v.typeOf().as<std::string>() == "object" && !v.isNull() && v["error"].isString())
    throw std::runtime_error(v["error"].as<std::string>());
  if (!val::global("Array").call<bool>("isArray", v)) throw std::runtime_error(what + " must return an array of numbers");
  return emscripten::convertJSArrayToNumberVector<double>(v);
}

val js_numbers(std::span<const double> xs) {
  val a = val::array();
  for (double x : xs) a.call<void>("push", x);
  return a;
}

std::shared_ptr<Bindings> bindings_from(const val& spec) {
  auto out = std::make_shared<Bindings>();
  for (const std::string& name : keys_of(spec)) {
    val entry = spec[name];
    val forward = entry["forward"];
    val vjp = entry["vjp"];
    Binding b;
    b.forward = [forward](std::span<const double> args) -> double {
      val r = forward(js_numbers(args));
      if (r.isNumber()) return r.as<double>();
      if (r.typeOf().as<std::string>() == "object" && !r.isNull() && r["error"].isString())
        throw std::runtime_error(r["error"].as<std::string>());
      throw std::runtime_error("forward must return a number, got " + r.typeOf().as<std::string>());
    };
    if (!vjp.isUndefined() && !vjp.isNull())
      b.vjp = [vjp](std::span<const double> args, double result) -> std::vector<double> {
        return numbers_of(vjp(js_numbers(args), result), "vjp");
      };
    (*out)[name] = std::move(b);
  }
  return out;
}

// ---- Program

class CoreProgram {
 public:
  CoreProgram() = default;

  val load(const std::string& text) {
    auto p = load_artifact(text);
    // Artifact locations point into the Python source, not into this text.
    if (!p) return error_value("artifact", p.error(), /*show_location=*/false);
    set(std::move(*p));
    return ok_value();
  }

  val compile(const std::string& source, const val& opts) {
    CompileOptions o;
    for (const char* key : {"filename", "function"}) {
      if (!given(opts, key)) continue;
      auto text = string_option(opts[key], key);
      if (!text) return error_value("argument", text.error());
      (std::string_view(key) == "filename" ? o.filename : o.function) = *text;
    }
    if (given(opts, "inputs")) {
      val inputs = opts["inputs"];
      for (const std::string& name : keys_of(inputs)) {
        val spelled = inputs[name];
        if (!spelled.isString()) return error_value("compile", "input '" + name + "': the domain must be a string such as 'int32:-128:127'");
        auto d = parse_domain(spelled.as<std::string>());
        if (!d) return error_value("compile", "input '" + name + "': " + d.error().message);
        o.inputs.emplace_back(name, *d);
      }
    }
    if (given(opts, "dtype")) {
      auto d = dtype_arg(opts["dtype"]);
      if (!d) return error_value("compile", d.error());
      o.dtype = *d;
    }
    if (given(opts, "semantics")) {
      auto s = semantics_arg(opts["semantics"]);
      if (!s) return error_value("compile", s.error());
      o.semantics = *s;
    }
    if (given(opts, "surrogate")) {
      auto s = surrogate_arg(opts["surrogate"]);
      if (!s) return error_value("compile", s.error());
      o.surrogate = *s;
    }
    if (given(opts, "temperature")) {
      double t = opts["temperature"].as<double>();
      if (!std::isfinite(t) || t <= 0) return error_value("compile", "temperature must be finite and greater than 0");
      o.temperature = t;
    }
    // Integers that fit the frontend's std::size_t (32 bits here): 1e12 used
    // to wrap to 0 and was reported as "more than 0 nodes".
    if (given(opts, "maxIterations")) {
      auto n = integer_option(opts["maxIterations"], "maxIterations", 0, kSizeMax);
      if (!n) return error_value("argument", n.error());
      o.max_iterations = static_cast<std::size_t>(*n);
    }
    if (given(opts, "maxNodes")) {
      auto n = integer_option(opts["maxNodes"], "maxNodes", 1, kSizeMax);
      if (!n) return error_value("argument", n.error());
      o.max_nodes = static_cast<std::size_t>(*n);
    }
    if (given(opts, "useInputDirectives")) {
      auto b = bool_option(opts["useInputDirectives"], "useInputDirectives");
      if (!b) return error_value("argument", b.error());
      o.use_input_directives = *b;
    }
    auto compiled = compile_python(source, o);
    if (!compiled) return error_value("compile", compiled.error());
    set(std::move(compiled->program));
    source_file_ = o.filename;
    val warnings = val::array();
    for (const Diagnostic& w : compiled->warnings) warnings.call<void>("push", w.format());
    return ok_value(warnings);
  }

  std::string to_json() const { return save_artifact(program_); }

  /// This program with host functions for its call nodes (replaces earlier ones).
  void bind_from(const CoreProgram& other, const val& spec) {
    set(other.program_, other.source_file_);
    bindings_ = bindings_from(spec);
  }
  bool has_bindings() const { return bindings_ != nullptr; }

  val info() const {
    val o = val::object();
    o.set("dtype", std::string(to_string(program_.dtype)));
    o.set("semantics", std::string(to_string(program_.semantics)));
    o.set("surrogate", std::string(to_string(program_.surrogate)));
    o.set("temperature", program_.temperature);
    o.set("nodes", program_.nodes.size());
    val inputs = val::array(), params = val::array(), states = val::array(), outputs = val::array();
    for (const Node& n : program_.nodes) {
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
    for (const auto& [name, id] : program_.outputs) outputs.call<void>("push", name);
    o.set("inputs", inputs);
    o.set("parameters", params);
    o.set("states", states);
    o.set("outputs", outputs);
    o.set("hasCalls", program_.has_calls());
    return o;
  }

  /// One checked case: {outputs: {name: v}, nextState: {name: v}}.
  val run(const val& inputs, const val& params, const val& state) {
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
    for (const Node& n : program_.nodes)
      if (n.op == Op::State) {
        auto it = env->state.find(n.name);
        next.set(n.name, it != env->state.end() ? it->second : n.value);
      }
    for (std::size_t u = 0; u < program_.updates.size() && u < r->next_state.size(); ++u)
      next.set(program_.nodes[static_cast<std::size_t>(program_.updates[u].first)].name, r->next_state[u]);
    o.set("nextState", next);
    return ok_value(o);
  }

  /// The fast path of run(): input values in input node order (no names to
  /// look up on the JavaScript side), outputs as a Float64Array in artifact
  /// order. Parameters and state take their stored values.
  val run_values(const val& values) {
    auto ev = evaluator();
    if (!ev) return eval_error(ev.error());
    const auto& ids = (*ev)->input_ids();
    if (values["length"].as<std::size_t>() != ids.size())
      return error_value("evaluation", "expected " + std::to_string(ids.size()) + " input values");
    std::vector<double> v = emscripten::convertJSArrayToNumberVector<double>(values);
    Env env;
    for (std::size_t k = 0; k < ids.size(); ++k) env.inputs.emplace(program_.nodes[static_cast<std::size_t>(ids[k])].name, v[k]);
    auto r = (*ev)->run(env);
    if (!r) return eval_error(r.error());
    val view(emscripten::typed_memory_view(r->outputs.size(), r->outputs.data()));
    return val::global("Float64Array").new_(view);
  }

  /// `count` cases; `columns` holds input k of case c at [k * count + c]
  /// (inputs in node order). Returns {outputs: [Float64Array per output],
  /// failed: Uint8Array, errors: [{index, error}]}.
  val run_batch(const val& columns, const val& count_v, const val& params, const val& state, const val& dtype) {
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
    std::vector<double> data = emscripten::convertJSArrayToNumberVector<double>(columns);
    const std::size_t k = (*ev)->input_ids().size();
    if (data.size() != k * count)
      return error_value("evaluation", "batch: expected " + std::to_string(k * count) + " input values (" +
                                           std::to_string(k) + " inputs x " + std::to_string(count) +
                                           " cases), got " + std::to_string(data.size()));
    auto fixed = make_env(val::undefined(), params, state);
    if (!fixed) return error_value("evaluation", fixed.error());
    std::vector<std::span<const double>> cols;
    for (std::size_t i = 0; i < k; ++i) cols.emplace_back(data.data() + i * count, count);
    BatchResult out;
    if (Status s = (*ev)->run_batch(cols, count, *fixed, out); !s) return eval_error(s.error());
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

  val gradients(const val& inputs, const val& params, const val& state, const val& opts) {
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
      double t = opts["temperature"].as<double>();
      if (!std::isfinite(t) || t <= 0) return error_value("evaluation", "temperature must be finite and greater than 0");
      g.temperature = t;
    }
    g.bindings = bindings_.get();
    auto r = tc::gradients(program_, *env, g);
    if (!r) return eval_error(r.error());
    val grads = val::object();
    for (const auto& [name, d] : r->gradients) grads.set(name, d);
    val o = val::object();
    o.set("result", r->result);
    o.set("gradients", grads);
    return ok_value(o);
  }

  val optimize_into(CoreProgram& out, const val& opts) const {
    OptimizeOptions o;
    for (auto [key, slot] : {std::pair<const char*, bool*>{"fold", &o.fold}, {"pack", &o.pack}, {"sparse", &o.pack_options.sparse}}) {
      if (!given(opts, key)) continue;
      auto b = bool_option(opts[key], key);
      if (!b) return error_value("argument", b.error());
      *slot = *b;
    }
    auto r = tc::optimize(program_, o);
    if (!r) return error_value("pass", r.error());
    out.set(std::move(r->program), source_file_);
    val stats = val::object();
    stats.set("nodesBefore", r->stats.nodes_before);
    stats.set("nodesAfter", r->stats.nodes_after);
    return ok_value(stats);
  }

  val freeze_into(CoreProgram& out, const val& names) const {
    auto r = tc::freeze(program_, string_list(names));
    if (!r) return error_value("pass", r.error());
    out.set(std::move(*r), source_file_);
    return ok_value();
  }

  val schedule() const {
    auto s = tc::schedule(program_);
    if (!s) return error_value("pass", s.error());
    val layers = val::array();
    for (const auto& layer : s->layers) {
      val l = val::array();
      for (NodeId id : layer) l.call<void>("push", id);
      layers.call<void>("push", l);
    }
    return ok_value(layers);
  }

  val analyze(const val& opts) const {
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
    auto a = tc::analyze(program_, o);
    if (!a) return error_value("pass", a.error());
    auto end = [](double v) { return std::isinf(v) ? val::null() : val(v); };
    auto interval = [&](const Interval& i) {
      val pair = val::array();
      pair.call<void>("push", end(i.lo));
      pair.call<void>("push", end(i.hi));
      return pair;
    };
    val nodes = val::array();
    for (const Node& n : program_.nodes) {
      val j = val::object();
      j.set("id", n.id);
      j.set("op", std::string(op_name(n.op)));
      j.set("interval", interval(a->intervals[static_cast<std::size_t>(n.id)]));
      nodes.call<void>("push", j);
    }
    val outputs = val::object();
    for (const auto& [name, id] : program_.outputs) outputs.set(name, interval(a->intervals[static_cast<std::size_t>(id)]));
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

  val emit_wasm() const {
    auto bytes = emit::emit_wasm(program_);
    if (!bytes) return error_value("emit", bytes.error());
    return ok_value(bytes_value(*bytes));
  }

  val emit_wgsl() const {
    auto code = emit::emit_wgsl(program_);
    if (!code) return error_value("emit", code.error());
    return ok_value(val(*code));
  }

  const Program& program() const { return program_; }
  const std::shared_ptr<Bindings>& bindings() const { return bindings_; }
  /// Where node locations point: the source this program was compiled from here, if any.
  const std::optional<std::string>& source_file() const { return source_file_; }
  void set(Program p, std::optional<std::string> source_file = std::nullopt) {
    source_file_ = std::move(source_file);
    bindings_.reset();
    program_ = std::move(p);
    for (auto& e : evaluators_) e.reset();
    output_names_.clear();
    for (const auto& [name, id] : program_.outputs) output_names_.push_back(name);
  }

 private:
  Result<Env> make_env(const val& inputs, const val& params, const val& state) const {
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

  // Prepared once per program (and dtype override): run() is called per case.
  Result<const Evaluator*> evaluator(std::optional<Dtype> dtype = std::nullopt) {
    std::unique_ptr<Evaluator>& slot = evaluators_[dtype ? 1 + static_cast<int>(*dtype) : 0];
    if (!slot) {
      EvalOptions options;
      options.dtype = dtype;
      options.bindings = bindings_.get();
      auto ev = Evaluator::create(program_, options);
      if (!ev) return ev.error();
      slot = std::make_unique<Evaluator>(std::move(*ev));
    }
    return slot.get();
  }

  /// An evaluation error, located in the message when the source is known.
  val eval_error(const Diagnostic& d) const {
    Diagnostic copy = d;
    if (source_file_) copy.file = *source_file_;
    return error_value("evaluation", copy, source_file_.has_value());
  }

  Program program_;
  std::optional<std::string> source_file_;
  std::shared_ptr<Bindings> bindings_;  ///< shared with runtimes made from this program
  std::unique_ptr<Evaluator> evaluators_[3];
  std::vector<std::string> output_names_;
};

// ---- Runtime

class CoreRuntime {
 public:
  CoreRuntime() = default;

  val create(const CoreProgram& program, double max_steps) {
    if (!(max_steps >= 0) || max_steps != std::floor(max_steps) || max_steps > 9007199254740992.0)
      return error_value("runtime", "maxSteps must be a non-negative integer");
    bindings_ = program.bindings();
    auto r = Runtime::create(program.program(), static_cast<std::uint64_t>(max_steps), bindings_.get());
    if (!r) return error_value("runtime", r.error(), false);
    runtime_ = std::make_unique<Runtime>(std::move(*r));
    return ok_value();
  }

  val restore(const std::string& text, const val& spec) {
    if (!spec.isUndefined() && !spec.isNull()) bindings_ = bindings_from(spec);
    auto r = Runtime::restore_text(text, bindings_.get());
    if (!r) return error_value("snapshot", r.error(), false);
    runtime_ = std::make_unique<Runtime>(std::move(*r));
    return ok_value();
  }

  val dispatch(const val& inputs) {
    auto named = named_numbers(inputs, "input");
    if (!named) return error_value("evaluation", named.error());
    auto r = runtime_->dispatch(*named);
    if (!r) return error_value("evaluation", r.error());
    return ok_value(step_value(*r));
  }

  val step(const val& inputs, const val& state) const {
    auto named = named_numbers(inputs, "input");
    if (!named) return error_value("evaluation", named.error());
    NamedValues st;
    if (state.isUndefined() || state.isNull()) {
      st = runtime_->state_map();
    } else {
      auto s = named_numbers(state, "state");
      if (!s) return error_value("evaluation", s.error());
      st = std::move(*s);
    }
    auto r = runtime_->step(*named, st);
    if (!r) return error_value("evaluation", r.error());
    return ok_value(step_value(*r));
  }

  /// Dispatches events in order, stopping at the first that fails.
  val replay(const val& events) {
    const unsigned n = events["length"].as<unsigned>();
    std::vector<NamedValues> list;
    for (unsigned i = 0; i < n; ++i) {
      auto named = named_numbers(events[i], "input");
      if (!named) {
        // Nothing runs when an event is malformed: the whole list is checked first.
        val r = error_value("evaluation", "event " + std::to_string(i) + ": " + named.error().message);
        return r;
      }
      list.push_back(std::move(*named));
    }
    ReplayResult rr = runtime_->replay(list);
    val o = val::object();
    o.set("committed", rr.committed);
    if (rr.failure) {
      val f = val::object();
      f.set("index", rr.failure->index);
      f.set("error", error_value("evaluation", rr.failure->error)["error"]);
      o.set("failure", f);
    }
    return ok_value(o);
  }

  std::string snapshot() const { return runtime_->snapshot_text(); }
  val state() const { return number_map(runtime_->state_names(), runtime_->state()); }
  double steps() const { return static_cast<double>(runtime_->steps()); }
  double max_steps() const { return static_cast<double>(runtime_->max_steps()); }
  void program_into(CoreProgram& out) const { out.set(runtime_->program()); }

 private:
  val step_value(const StepResult& r) const {
    val o = val::object();
    o.set("outputs", number_map(runtime_->output_names(), r.outputs));
    o.set("state", number_map(runtime_->state_names(), r.state));
    return o;
  }

  std::shared_ptr<Bindings> bindings_;  ///< outlives runtime_ (declared first, destroyed last)
  std::unique_ptr<Runtime> runtime_;
};

// ---- Builder

/// tc::Builder with values addressed by node id: the TypeScript Value holds
/// the id, and every Value the builder returned is kept here.
class CoreBuilder {
 public:
  CoreBuilder() = default;

  val init(const val& opts) {
    Semantics sem = Semantics::Exact;
    Surrogate sur = Surrogate::Sigmoid;
    Dtype dt = Dtype::Float64;
    double temperature = 1.0;
    if (given(opts, "semantics")) {
      auto s = semantics_arg(opts["semantics"]);
      if (!s) return error_value("build", s.error());
      sem = *s;
    }
    if (given(opts, "surrogate")) {
      auto s = surrogate_arg(opts["surrogate"]);
      if (!s) return error_value("build", s.error());
      sur = *s;
    }
    if (given(opts, "dtype")) {
      auto d = dtype_arg(opts["dtype"]);
      if (!d) return error_value("build", d.error());
      dt = *d;
    }
    if (given(opts, "temperature")) {
      temperature = opts["temperature"].as<double>();
      if (!std::isfinite(temperature) || temperature <= 0)
        return error_value("build", "temperature must be finite and greater than 0");
    }
    b_ = std::make_unique<Builder>(sem, sur, temperature, dt);
    return ok_value();
  }

  int input(const std::string& name, const std::string& domain, const val& differentiable) {
    auto d = parse_domain(domain);
    if (!d) return fail("input('" + name + "'): " + d.error().message);
    std::optional<bool> diff;
    if (differentiable.isTrue() || differentiable.isFalse()) diff = differentiable.isTrue();
    return keep(b_->input(name, *d, diff));
  }
  int parameter(const std::string& name, double initial) { return keep(b_->parameter(name, initial)); }
  int constant(double value) { return keep(b_->constant(value)); }
  int state(const std::string& name, double initial, const std::string& domain) {
    auto d = parse_domain(domain);
    if (!d) return fail("state('" + name + "'): " + d.error().message);
    return keep(b_->state(name, initial, *d));
  }
  void update(const val& state, const val& next) { b_->update(value(state), arg(next)); }
  int select(const val& c, const val& yes, const val& no) { return keep(b_->select(arg(c), arg(yes), arg(no))); }
  int op(const std::string& name, const val& args) { return keep(b_->op(name, args_of(args))); }
  int gather(const val& values, const val& index) { return keep(b_->gather(args_of(values), arg(index))); }
  val one_hot(const val& index, const val& n) {
    auto width = integer_option(n, "oneHot: n", 1, std::numeric_limits<int>::max());
    if (!width) {
      fail(width.error().message);
      return val::array();
    }
    val ids = val::array();
    for (Value v : b_->one_hot(arg(index), static_cast<int>(*width))) ids.call<void>("push", keep(v));
    return ids;
  }
  int gather_one_hot(const val& selectors, const val& values) {
    return keep(b_->gather_one_hot(args_of(selectors), args_of(values)));
  }
  int affine(const val& xs, const val& coefficients, const val& bias) {
    return keep(b_->affine(args_of(xs), emscripten::convertJSArrayToNumberVector<double>(coefficients), optional_number(bias)));
  }
  int sparse_affine(const val& xs, const val& indices, const val& coefficients, const val& bias) {
    // Each index read as a double and checked: a conversion to int32 would
    // truncate 1.9 to 1 and wrap 2**40 to 0 (another circuit, no error).
    std::vector<std::int32_t> ks;
    const unsigned n = val::global("Array").call<bool>("isArray", indices) ? indices["length"].as<unsigned>() : 0;
    for (unsigned i = 0; i < n; ++i) {
      auto k = integer_option(indices[i], "sparseAffine: indices[" + std::to_string(i) + "]",
                              std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
      if (!k) return fail(k.error().message);
      ks.push_back(static_cast<std::int32_t>(*k));
    }
    return keep(b_->sparse_affine(args_of(xs), ks, emscripten::convertJSArrayToNumberVector<double>(coefficients),
                                  optional_number(bias)));
  }
  int call(const std::string& name, const val& args) { return keep(b_->call(name, args_of(args))); }
  val include(const CoreProgram& program, const val& inputs, const std::string& prefix) {
    std::map<std::string, Arg> wired;
    for (const std::string& k : keys_of(inputs)) wired.emplace(k, arg(inputs[k]));
    val out = val::object();
    for (const auto& [name, v] : b_->include(program.program(), wired, prefix)) out.set(name, keep(v));
    return out;
  }
  /// body(carry id, item id) returns a value (an id object or a number).
  int scan(const val& body, const val& init, const val& sequence) {
    auto fn = [this, &body](Builder&, Value carry, Value item) -> Value {
      val r = body(keep(carry), keep(item));
      Arg a = arg(r);
      if (const double* d = std::get_if<double>(&a.get())) return b_->constant(*d);
      return std::get<Value>(a.get());
    };
    return keep(b_->scan(fn, arg(init), args_of(sequence)));
  }
  void freeze(const val& names) { b_->freeze(string_list(names)); }

  /// outputs: a value, or an object {name: value} (insertion order kept).
  val build_into(CoreProgram& out, const val& outputs) {
    if (error_) return error_value("build", *error_);
    Result<Program> p = make_error("build() was given nothing");
    if (outputs.isNumber() || (outputs.typeOf().as<std::string>() == "object" && !outputs["id"].isUndefined())) {
      p = b_->build(arg(outputs));
    } else {
      std::vector<std::pair<std::string, Arg>> named;
      for (const std::string& k : keys_of(outputs)) named.emplace_back(k, arg(outputs[k]));
      p = b_->build(named);
    }
    if (error_) return error_value("build", *error_);
    if (!p) return error_value("build", p.error());
    out.set(std::move(*p));
    return ok_value();
  }

 private:
  int keep(Value v) {
    const auto id = static_cast<std::size_t>(v.id());
    if (handles_.size() <= id) handles_.resize(id + 1);
    handles_[id] = v;
    return v.id();
  }
  int fail(const std::string& message) {
    if (!error_) error_ = make_error(message);
    return keep(b_->constant(0));
  }
  /// A TypeScript argument: a number literal or {id}.
  Arg arg(const val& v) {
    if (v.isNumber()) return Arg(v.as<double>());
    if (v.isTrue() || v.isFalse()) return Arg(v.isTrue() ? 1.0 : 0.0);
    return value(v);
  }
  Value value(const val& v) {
    if (v.typeOf().as<std::string>() == "object" && !v.isNull() && v["id"].isNumber()) {
      const double id = v["id"].as<double>();
      if (id >= 0 && id < static_cast<double>(handles_.size()) && handles_[static_cast<std::size_t>(id)].valid())
        return handles_[static_cast<std::size_t>(id)];
    }
    fail("an argument is neither a number nor a value of this builder");
    return b_->constant(0);
  }
  std::vector<Arg> args_of(const val& arr) {
    std::vector<Arg> out;
    if (arr.isUndefined() || arr.isNull() || !val::global("Array").call<bool>("isArray", arr)) {
      fail("expected an array of values");
      return out;
    }
    const unsigned n = arr["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) out.push_back(arg(arr[i]));
    return out;
  }
  static std::optional<double> optional_number(const val& v) {
    if (v.isNumber()) return v.as<double>();
    return std::nullopt;
  }

  std::unique_ptr<Builder> b_;
  std::vector<Value> handles_;
  std::optional<Diagnostic> error_;
};

}  // namespace
}  // namespace tc::wasm

EMSCRIPTEN_BINDINGS(tensorcode) {
  using namespace emscripten;
  using namespace tc::wasm;
  function("parseDomain", &guarded<&parse_domain_js>::call);
  function("opNames", &guarded<&op_names_js>::call);
  function("heapStats", &heap_stats_js);
  class_<CoreProgram>("CoreProgram")
      .constructor<>()
      .function("load", &guarded<&CoreProgram::load>::call)
      .function("compile", &guarded<&CoreProgram::compile>::call)
      .function("toJSON", &guarded<&CoreProgram::to_json>::call)
      .function("bindFrom", &guarded<&CoreProgram::bind_from>::call)
      .function("hasBindings", &guarded<&CoreProgram::has_bindings>::call)
      .function("info", &guarded<&CoreProgram::info>::call)
      .function("run", &guarded<&CoreProgram::run>::call)
      .function("runValues", &guarded<&CoreProgram::run_values>::call)
      .function("runBatch", &guarded<&CoreProgram::run_batch>::call)
      .function("gradients", &guarded<&CoreProgram::gradients>::call)
      .function("optimizeInto", &guarded<&CoreProgram::optimize_into>::call)
      .function("freezeInto", &guarded<&CoreProgram::freeze_into>::call)
      .function("schedule", &guarded<&CoreProgram::schedule>::call)
      .function("analyze", &guarded<&CoreProgram::analyze>::call)
      .function("emitWasm", &guarded<&CoreProgram::emit_wasm>::call)
      .function("emitWgsl", &guarded<&CoreProgram::emit_wgsl>::call);
  class_<CoreRuntime>("CoreRuntime")
      .constructor<>()
      .function("create", &guarded<&CoreRuntime::create>::call)
      .function("restore", &guarded<&CoreRuntime::restore>::call)
      .function("dispatch", &guarded<&CoreRuntime::dispatch>::call)
      .function("step", &guarded<&CoreRuntime::step>::call)
      .function("replay", &guarded<&CoreRuntime::replay>::call)
      .function("snapshot", &guarded<&CoreRuntime::snapshot>::call)
      .function("state", &guarded<&CoreRuntime::state>::call)
      .function("steps", &guarded<&CoreRuntime::steps>::call)
      .function("maxSteps", &guarded<&CoreRuntime::max_steps>::call)
      .function("programInto", &guarded<&CoreRuntime::program_into>::call);
  class_<CoreBuilder>("CoreBuilder")
      .constructor<>()
      .function("init", &guarded<&CoreBuilder::init>::call)
      .function("input", &guarded<&CoreBuilder::input>::call)
      .function("parameter", &guarded<&CoreBuilder::parameter>::call)
      .function("constant", &guarded<&CoreBuilder::constant>::call)
      .function("state", &guarded<&CoreBuilder::state>::call)
      .function("update", &guarded<&CoreBuilder::update>::call)
      .function("select", &guarded<&CoreBuilder::select>::call)
      .function("op", &guarded<&CoreBuilder::op>::call)
      .function("gather", &guarded<&CoreBuilder::gather>::call)
      .function("oneHot", &guarded<&CoreBuilder::one_hot>::call)
      .function("gatherOneHot", &guarded<&CoreBuilder::gather_one_hot>::call)
      .function("affine", &guarded<&CoreBuilder::affine>::call)
      .function("sparseAffine", &guarded<&CoreBuilder::sparse_affine>::call)
      .function("call", &guarded<&CoreBuilder::call>::call)
      .function("include", &guarded<&CoreBuilder::include>::call)
      .function("scan", &guarded<&CoreBuilder::scan>::call)
      .function("freeze", &guarded<&CoreBuilder::freeze>::call)
      .function("buildInto", &guarded<&CoreBuilder::build_into>::call);
}
