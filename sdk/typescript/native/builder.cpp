// CoreBuilder: a tc::Builder as the TypeScript Builder's native handle (builder.h).
#include "builder.h"

#include <cmath>
#include <cstdint>

namespace tc::wasm {

val CoreBuilder::init(const val& opts) {
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
    auto t = temperature_arg(opts["temperature"]);
    if (!t) return error_value("build", t.error());
    temperature = *t;
  }
  b_ = std::make_unique<Builder>(sem, sur, temperature, dt);
  return ok_value();
}

int CoreBuilder::input(const std::string& name, const std::string& domain, const val& differentiable) {
  auto d = parse_domain(domain);
  if (!d) return fail("input('" + name + "'): " + d.error().message);
  std::optional<bool> diff;
  if (differentiable.isTrue() || differentiable.isFalse()) diff = differentiable.isTrue();
  return keep(b_->input(name, *d, diff));
}

int CoreBuilder::state(const std::string& name, double initial, const std::string& domain) {
  auto d = parse_domain(domain);
  if (!d) return fail("state('" + name + "'): " + d.error().message);
  return keep(b_->state(name, initial, *d));
}

val CoreBuilder::one_hot(const val& index, const val& n) {
  auto width = integer_option(n, "oneHot: n", 1, std::numeric_limits<int>::max());
  if (!width) {
    fail(width.error().message);
    return val::array();
  }
  val ids = val::array();
  for (Value v : b_->one_hot(arg(index), static_cast<int>(*width))) ids.call<void>("push", keep(v));
  return ids;
}

int CoreBuilder::gather_one_hot(const val& selectors, const val& values) {
  return keep(b_->gather_one_hot(args_of(selectors), args_of(values)));
}

int CoreBuilder::affine(const val& xs, const val& coefficients, const val& bias) {
  return keep(b_->affine(args_of(xs), emscripten::convertJSArrayToNumberVector<double>(coefficients), optional_number(bias)));
}

int CoreBuilder::sparse_affine(const val& xs, const val& indices, const val& coefficients, const val& bias) {
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

val CoreBuilder::include(const CoreProgram& program, const val& inputs, const std::string& prefix) {
  std::map<std::string, Arg> wired;
  for (const std::string& k : keys_of(inputs)) wired.emplace(k, arg(inputs[k]));
  val out = val::object();
  for (const auto& [name, v] : b_->include(program.program(), wired, prefix)) out.set(name, keep(v));
  return out;
}

int CoreBuilder::scan(const val& body, const val& init, const val& sequence) {
  auto fn = [this, &body](Builder&, Value carry, Value item) -> Value {
    val r = body(keep(carry), keep(item));
    Arg a = arg(r);
    if (const double* d = std::get_if<double>(&a.get())) return b_->constant(*d);
    return std::get<Value>(a.get());
  };
  return keep(b_->scan(fn, arg(init), args_of(sequence)));
}

val CoreBuilder::build_into(CoreProgram& out, const val& outputs) {
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

int CoreBuilder::keep(Value v) {
  const auto id = static_cast<std::size_t>(v.id());
  if (handles_.size() <= id) handles_.resize(id + 1);
  handles_[id] = v;
  return v.id();
}

int CoreBuilder::fail(const std::string& message) {
  if (!error_) error_ = make_error(message);
  return keep(b_->constant(0));
}

Arg CoreBuilder::arg(const val& v) {
  if (v.isNumber()) return Arg(v.as<double>());
  if (v.isTrue() || v.isFalse()) return Arg(v.isTrue() ? 1.0 : 0.0);
  return value(v);
}

Value CoreBuilder::value(const val& v) {
  if (v.typeOf().as<std::string>() == "object" && !v.isNull() && v["id"].isNumber()) {
    const double id = v["id"].as<double>();
    if (id >= 0 && id < static_cast<double>(handles_.size()) && handles_[static_cast<std::size_t>(id)].valid())
      return handles_[static_cast<std::size_t>(id)];
  }
  fail("an argument is neither a number nor a value of this builder");
  return b_->constant(0);
}

std::vector<Arg> CoreBuilder::args_of(const val& arr) {
  std::vector<Arg> out;
  if (arr.isUndefined() || arr.isNull() || !val::global("Array").call<bool>("isArray", arr)) {
    fail("expected an array of values");
    return out;
  }
  const unsigned n = arr["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) out.push_back(arg(arr[i]));
  return out;
}

std::optional<double> CoreBuilder::optional_number(const val& v) {
  if (v.isNumber()) return v.as<double>();
  return std::nullopt;
}

}  // namespace tc::wasm
