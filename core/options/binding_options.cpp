// The option rules of binding_options.h: one place for the checks and the
// words, so Python and TypeScript cannot drift apart again (they once
// said "unknown dtype 'x' (expected ...)" and "dtype must be ..., got 'x'").
#include "options/binding_options.h"

#include <cmath>
#include <limits>

#include "base/number_text.h"

namespace tc::options {

namespace {

using nlohmann::json;

/// "got number" for a wrong type, "got 'fuzzy'" for a string.
std::string got(const json& v) {
  if (v.is_string()) return "got '" + v.get<std::string>() + "'";
  return "got " + type_name(v);
}

template <class T, class From>
Result<T> named_choice(const json& v, std::string_view name, std::string_view choices, From from) {
  const std::string rule = std::string(name) + " must be " + std::string(choices) + ", ";
  if (!v.is_string()) return make_error(rule + got(v));
  auto chosen = from(v.get<std::string>());
  if (!chosen) return make_error(rule + got(v));
  return *chosen;
}

bool given(const json& bag, const char* key) { return bag.is_object() && bag.contains(key) && !bag[key].is_null(); }

}  // namespace

std::string type_name(const json& v) {
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_null()) return "null";
  if (v.is_array()) return "array";
  return "object";
}

Result<Semantics> semantics(const json& v) {
  return named_choice<Semantics>(v, "semantics", "exact, relaxed or hybrid",
                                 [](const std::string& s) { return semantics_from(s); });
}

Result<Dtype> dtype(const json& v) {
  return named_choice<Dtype>(v, "dtype", "float64 or float32", [](const std::string& s) { return dtype_from(s); });
}

Result<Surrogate> surrogate(const json& v) {
  return named_choice<Surrogate>(v, "surrogate", "sigmoid", [](const std::string& s) { return surrogate_from(s); });
}

Result<double> temperature(const json& v) {
  if (!v.is_number()) return make_error("temperature must be finite and greater than 0, " + got(v));
  const double t = v.get<double>();
  if (!std::isfinite(t) || t <= 0) return make_error("temperature must be finite and greater than 0, got " + shortest_number(t));
  return t;
}

Result<std::string> text(const json& v, std::string_view name) {
  if (!v.is_string()) return make_error(std::string(name) + " must be a string, got " + type_name(v));
  return v.get<std::string>();
}

Result<bool> flag(const json& v, std::string_view name) {
  if (!v.is_boolean()) return make_error(std::string(name) + " must be true or false, got " + type_name(v));
  return v.get<bool>();
}

Result<std::uint64_t> count(const json& v, std::string_view name, std::uint64_t lo, std::uint64_t hi) {
  const std::string rule =
      std::string(name) + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got ";
  if (v.is_number_unsigned()) {
    const auto n = v.get<std::uint64_t>();
    if (n < lo || n > hi) return make_error(rule + std::to_string(n));
    return n;
  }
  if (v.is_number_integer()) return make_error(rule + std::to_string(v.get<std::int64_t>()));
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^64 and above do not convert; a fraction is not a count.
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d >= 18446744073709551616.0 ||
        static_cast<std::uint64_t>(d) > hi)
      return make_error(rule + shortest_number(d));
    return static_cast<std::uint64_t>(d);
  }
  return make_error(rule + type_name(v));
}

Result<Domain> domain(const json& v, std::string_view input) {
  const std::string where = "input '" + std::string(input) + "': ";
  if (!v.is_string()) return make_error(where + "the domain must be a string such as 'int32:-128:127'");
  auto d = parse_domain(v.get<std::string>());
  if (!d) return make_error(where + d.error().message);
  return *d;
}

Result<CompileOptions> compile_options(const json& bag, KeySpelling spelling, HintSpelling hints) {
  const bool camel = spelling == KeySpelling::Camel;
  CompileOptions o;
  o.hints = hints;
  if (!bag.is_null() && !bag.is_object()) return make_error("compile options must be an object, got " + type_name(bag));
  if (given(bag, "filename")) {
    auto t = text(bag["filename"], "filename");
    if (!t) return t.error();
    o.filename = *t;
  }
  if (given(bag, "function")) {
    auto t = text(bag["function"], "function");
    if (!t) return t.error();
    o.function = *t;
  }
  if (given(bag, "inputs")) {
    const json& inputs = bag["inputs"];
    if (!inputs.is_object()) return make_error("inputs must be an object naming a domain per input, got " + type_name(inputs));
    for (const auto& [name, spelled] : inputs.items()) {
      auto d = domain(spelled, name);
      if (!d) return d.error();
      o.inputs.emplace_back(name, *d);
    }
  }
  if (given(bag, "dtype")) {
    auto d = dtype(bag["dtype"]);
    if (!d) return d.error();
    o.dtype = *d;
  }
  if (given(bag, "semantics")) {
    auto s = semantics(bag["semantics"]);
    if (!s) return s.error();
    o.semantics = *s;
  }
  if (given(bag, "surrogate")) {
    auto s = surrogate(bag["surrogate"]);
    if (!s) return s.error();
    o.surrogate = *s;
  }
  if (given(bag, "temperature")) {
    auto t = temperature(bag["temperature"]);
    if (!t) return t.error();
    o.temperature = *t;
  }
  // Counts must fit the frontend's std::size_t (32 bits in WebAssembly).
  constexpr std::uint64_t kSizeMax = std::numeric_limits<std::size_t>::max();
  const char* iterations = camel ? "maxIterations" : "max_iterations";
  if (given(bag, iterations)) {
    auto n = count(bag[iterations], iterations, 0, kSizeMax);
    if (!n) return n.error();
    o.max_iterations = static_cast<std::size_t>(*n);
  }
  const char* nodes = camel ? "maxNodes" : "max_nodes";
  if (given(bag, nodes)) {
    auto n = count(bag[nodes], nodes, 1, kSizeMax);
    if (!n) return n.error();
    o.max_nodes = static_cast<std::size_t>(*n);
  }
  const char* directives = camel ? "useInputDirectives" : "use_input_directives";
  if (given(bag, directives)) {
    auto b = flag(bag[directives], directives);
    if (!b) return b.error();
    o.use_input_directives = *b;
  }
  return o;
}

Result<BuilderSettings> builder_settings(const json& bag) {
  BuilderSettings b;
  if (!bag.is_null() && !bag.is_object()) return make_error("builder options must be an object, got " + type_name(bag));
  if (given(bag, "semantics")) {
    auto s = semantics(bag["semantics"]);
    if (!s) return s.error();
    b.semantics = *s;
  }
  if (given(bag, "surrogate")) {
    auto s = surrogate(bag["surrogate"]);
    if (!s) return s.error();
    b.surrogate = *s;
  }
  if (given(bag, "temperature")) {
    auto t = temperature(bag["temperature"]);
    if (!t) return t.error();
    b.temperature = *t;
  }
  if (given(bag, "dtype")) {
    auto d = dtype(bag["dtype"]);
    if (!d) return d.error();
    b.dtype = *d;
  }
  return b;
}

}  // namespace tc::options
