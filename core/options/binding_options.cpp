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

namespace {

/// bag[key] read by `read` into `field` when the key is given (not null).
template <class T, class Read>
Status take(const json& bag, const char* key, T& field, Read read) {
  if (!given(bag, key)) return ok_status();
  auto v = read(bag[key]);
  if (!v) return v.error();
  field = static_cast<T>(*v);
  return ok_status();
}

/// The four settings a compile and a Builder share.
Status take_settings(const json& bag, BuilderSettings& b) {
  if (Status s = take(bag, "dtype", b.dtype, dtype); !s) return s;
  if (Status s = take(bag, "semantics", b.semantics, semantics); !s) return s;
  if (Status s = take(bag, "surrogate", b.surrogate, surrogate); !s) return s;
  return take(bag, "temperature", b.temperature, temperature);
}

}  // namespace

Result<CompileOptions> compile_options(const json& bag, KeySpelling spelling, HintSpelling hints) {
  const bool camel = spelling == KeySpelling::Camel;
  CompileOptions o;
  o.hints = hints;
  if (!bag.is_null() && !bag.is_object()) return make_error("compile options must be an object, got " + type_name(bag));
  auto as_text = [](const char* name) { return [name](const json& v) { return text(v, name); }; };
  if (Status s = take(bag, "filename", o.filename, as_text("filename")); !s) return s.error();
  if (Status s = take(bag, "function", o.function, as_text("function")); !s) return s.error();
  if (given(bag, "inputs")) {
    const json& inputs = bag["inputs"];
    if (!inputs.is_object()) return make_error("inputs must be an object naming a domain per input, got " + type_name(inputs));
    for (const auto& [name, spelled] : inputs.items()) {
      auto d = domain(spelled, name);
      if (!d) return d.error();
      o.inputs.emplace_back(name, *d);
    }
  }
  BuilderSettings settings{o.semantics, o.surrogate, o.temperature, o.dtype};
  if (Status s = take_settings(bag, settings); !s) return s.error();
  o.semantics = settings.semantics;
  o.surrogate = settings.surrogate;
  o.temperature = settings.temperature;
  o.dtype = settings.dtype;
  // Counts must fit the frontend's std::size_t (32 bits in WebAssembly).
  constexpr std::uint64_t kSizeMax = std::numeric_limits<std::size_t>::max();
  auto counted = [&](const char* name, std::uint64_t lo) {
    return [name, lo](const json& v) { return count(v, name, lo, kSizeMax); };
  };
  const char* iterations = camel ? "maxIterations" : "max_iterations";
  if (Status s = take(bag, iterations, o.max_iterations, counted(iterations, 0)); !s) return s.error();
  const char* nodes = camel ? "maxNodes" : "max_nodes";
  if (Status s = take(bag, nodes, o.max_nodes, counted(nodes, 1)); !s) return s.error();
  const char* directives = camel ? "useInputDirectives" : "use_input_directives";
  if (Status s = take(bag, directives, o.use_input_directives, [directives](const json& v) { return flag(v, directives); });
      !s)
    return s.error();
  return o;
}

Result<BuilderSettings> builder_settings(const json& bag) {
  BuilderSettings b;
  if (!bag.is_null() && !bag.is_object()) return make_error("builder options must be an object, got " + type_name(bag));
  if (Status s = take_settings(bag, b); !s) return s.error();
  return b;
}

}  // namespace tc::options
