// The option rules of binding_options.h: one place for the checks and the
// words, so Python and TypeScript cannot drift apart again (they once
// said "unknown dtype 'x' (expected ...)" and "dtype must be ..., got 'x'").
#include "options/binding_options.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

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

namespace {

/// A Choice option of the table: one of its words, read by `from`.
template <class T, class From>
Result<T> table_choice(const json& v, OptionId id, From from) {
  const OptionSpec& spec = option_spec(id);
  return named_choice<T>(v, spec.name, choices_text(spec), from);
}

}  // namespace

Result<Semantics> semantics(const json& v) {
  return table_choice<Semantics>(v, OptionId::Semantics, [](const std::string& s) { return semantics_from(s); });
}

Result<Dtype> dtype(const json& v) {
  return table_choice<Dtype>(v, OptionId::Dtype, [](const std::string& s) { return dtype_from(s); });
}

Result<Surrogate> surrogate(const json& v) {
  return table_choice<Surrogate>(v, OptionId::Surrogate, [](const std::string& s) { return surrogate_from(s); });
}

Result<EvalPlan> plan(const json& v) {
  return table_choice<EvalPlan>(v, OptionId::Plan, [](const std::string& s) -> std::optional<EvalPlan> {
    if (s == "auto") return EvalPlan::Auto;
    if (s == "interpreter") return EvalPlan::Interpreter;
    if (s == "compiled") return EvalPlan::Compiled;
    return std::nullopt;
  });
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

Result<std::uint64_t> count(const json& v, const OptionSpec& spec, KeySpelling spelling) {
  return count(v, spelled(spec, spelling), spec.lo, spec.hi);
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

namespace {

/// Reads the option of `spec` from `v` (not null) into its field of `o`.
Status read_field(const OptionSpec& spec, const json& v, KeySpelling spelling, CompileOptions& o) {
  const std::string name = spelled(spec, spelling);
  auto set = [](auto& field, auto read) -> Status {
    if (!read) return read.error();
    field = static_cast<std::remove_reference_t<decltype(field)>>(*read);
    return ok_status();
  };
  switch (spec.id) {
    case OptionId::Filename: return set(o.filename, text(v, name));
    case OptionId::Function: return set(o.function, text(v, name));
    case OptionId::Inputs: {
      if (!v.is_object()) return make_error(name + " must be an object naming a domain per input, got " + type_name(v));
      for (const auto& [input, spelled_domain] : v.items()) {
        auto d = domain(spelled_domain, input);
        if (!d) return d.error();
        o.inputs.emplace_back(input, *d);
      }
      return ok_status();
    }
    case OptionId::Dtype: return set(o.dtype, dtype(v));
    case OptionId::Semantics: return set(o.semantics, semantics(v));
    case OptionId::Surrogate: return set(o.surrogate, surrogate(v));
    case OptionId::Temperature: return set(o.temperature, temperature(v));
    case OptionId::MaxIterations: return set(o.max_iterations, count(v, spec, spelling));
    case OptionId::MaxNodes: return set(o.max_nodes, count(v, spec, spelling));
    case OptionId::UseInputDirectives: return set(o.use_input_directives, flag(v, name));
    case OptionId::Plan: return make_error(name + " is an option of a run (run, run_batch), not of a compile");
  }
  return make_error("unknown option " + name);
}

/// Marks in `given` the directive-settable option of `spec` as given with its value in `o`.
void note_given(const OptionSpec& spec, const CompileOptions& o, CompileDirectives& given) {
  if (spec.id == OptionId::Dtype) given.dtype = o.dtype;
  if (spec.id == OptionId::MaxIterations) given.max_iterations = o.max_iterations;
  if (spec.id == OptionId::MaxNodes) given.max_nodes = o.max_nodes;
}

}  // namespace

Status read_option(const OptionSpec& spec, const json& v, KeySpelling spelling, CompileRequest& request) {
  if (Status s = read_field(spec, v, spelling, request.options); !s) return s;
  if (spec.directive) note_given(spec, request.options, request.given);
  return ok_status();
}

Result<CompileRequest> compile_request(const json& bag, KeySpelling spelling, HintSpelling hints) {
  CompileRequest r;
  r.options.hints = hints;
  if (!bag.is_null() && !bag.is_object()) return make_error("compile options must be an object, got " + type_name(bag));
  for (const OptionSpec& spec : option_table()) {
    const std::string key = spelled(spec, spelling == KeySpelling::Cli ? KeySpelling::Snake : spelling);
    if (!given(bag, key.c_str())) continue;
    if (Status s = read_option(spec, bag[key], spelling, r); !s) return s.error();
  }
  return r;
}

Result<CompileOptions> compile_options(const json& bag, KeySpelling spelling, HintSpelling hints) {
  auto r = compile_request(bag, spelling, hints);
  if (!r) return r.error();
  return std::move(r->options);
}

Result<CompileOptions> CompileRequest::for_source(std::string_view source) const {
  return with_compile_directives(source, options, given);
}

Result<BuilderSettings> builder_settings(const json& bag) {
  BuilderSettings b;
  if (!bag.is_null() && !bag.is_object()) return make_error("builder options must be an object, got " + type_name(bag));
  if (Status s = take_settings(bag, b); !s) return s.error();
  return b;
}

}  // namespace tc::options
