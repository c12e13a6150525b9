// The embind layer's shared parts (common.h).
#include "common.h"

#include "options/binding_options.h"

#include <emscripten/heap.h>

#include <cmath>
#include <new>
#include <stdexcept>

namespace tc::wasm {

// ---- results

/// `show_location`: put "FILE:LINE:COL: " in the message. Off where the
/// location points into a Python source this text did not come from (an
/// artifact's nodes), as the CLI does; line and column are reported anyway.
val error_value(std::string_view kind, const Diagnostic& d, bool show_location) {
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

/// A JavaScript option value as JSON for core's option layer
/// (options/binding_options.h), which checks it with the same rules and
/// words as the Python package: strings, numbers, booleans, null and
/// undefined as themselves; any other value as an array or an empty object,
/// which core names by its type (a function is "object" there, where typeof
/// says "function"; no option takes one).
nlohmann::json option_json(const val& v) {
  if (v.isString()) return v.as<std::string>();
  if (v.isNumber()) return v.as<double>();
  if (v.isTrue()) return true;
  if (v.isFalse()) return false;
  if (v.isNull() || v.isUndefined()) return nullptr;
  if (val::global("Array").call<bool>("isArray", v)) return nlohmann::json::array();
  return nlohmann::json::object();
}

/// A string option, or an error naming it (embind's own conversion would
/// throw a JavaScript BindingError through the C++ frames instead).
Result<std::string> string_option(const val& v, const std::string& name) { return options::text(option_json(v), name); }
/// A boolean option: true or false only (embind would take any value's truthiness).
Result<bool> bool_option(const val& v, const std::string& name) { return options::flag(option_json(v), name); }

Result<Semantics> semantics_arg(const val& v) { return options::semantics(option_json(v)); }
Result<Dtype> dtype_arg(const val& v) { return options::dtype(option_json(v)); }
Result<Surrogate> surrogate_arg(const val& v) { return options::surrogate(option_json(v)); }
Result<double> temperature_arg(const val& v) { return options::temperature(option_json(v)); }
bool given(const val& o, const char* key) { return !o.isUndefined() && !o.isNull() && !o[key].isUndefined(); }

val bytes_value(const std::vector<std::uint8_t>& bytes) {
  // Copy out of the wasm heap: a view would be invalidated by memory growth.
  val view(emscripten::typed_memory_view(bytes.size(), bytes.data()));
  return val::global("Uint8Array").new_(view);
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

}  // namespace tc::wasm
