// Snapshots (contract section 3): the circuit, the committed state, the
// consumed steps and the budget, so a resumed runtime continues exactly where
// the saved one stopped and never gets its budget back.
#include <cmath>
#include <string>

#include "ir/artifact.h"
#include "runtime/runtime.h"

#include "base/json_append.h"
#include "runtime/runtime_impl.h"

namespace tc {

namespace {

constexpr const char* kFormat = "tensorcode.snapshot";
constexpr int kVersion = 1;
constexpr double kMaxExactInteger = 9007199254740992.0;  // 2^53

// Integral values print without a fraction (as the CLI prints results);
// every other value prints so that it parses back to the same double.
nlohmann::ordered_json json_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= kMaxExactInteger) return static_cast<std::int64_t>(v);
  return v;
}

Diagnostic snapshot_error(const std::string& what) { return make_error("snapshot: " + what); }

// A non-negative integer field (steps, max_steps, version).
Result<std::uint64_t> read_count(const nlohmann::ordered_json& root, const char* field) {
  auto it = root.find(field);
  if (it == root.end()) return snapshot_error(std::string("missing field '") + field + "'");
  const auto& v = *it;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {  // signed storage (a value built in memory, or a negative number)
    const std::int64_t i = v.get<std::int64_t>();
    if (i < 0) return snapshot_error(std::string("field '") + field + "' must not be negative");
    return static_cast<std::uint64_t>(i);
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (d >= 0 && d == std::floor(d) && d <= kMaxExactInteger) return static_cast<std::uint64_t>(d);
  }
  return snapshot_error(std::string("field '") + field + "' must be a non-negative integer, got " + short_json(v));
}

std::string num_text(double v) { return json_number(v).dump(); }

std::string domain_text(const std::optional<Domain>& d) { return d ? d->to_string() : std::string("none"); }

std::string loc_text(const std::optional<SourceLoc>& l) {
  return l && l->valid() ? "line " + std::to_string(l->line) + ", column " + std::to_string(l->column) : "none";
}

// Which field of two differing nodes differs, with both values where short.
std::string node_field_difference(const Node& a, const Node& b) {
  auto both = [](const std::string& field, const std::string& x, const std::string& y) {
    return field + " differs (" + x + " vs " + y + ")";
  };
  if (a.op != b.op) return both("op", std::string(op_name(a.op)), std::string(op_name(b.op)));
  if (a.args != b.args) return "args differ";
  if (a.name != b.name) return both("name", "'" + a.name + "'", "'" + b.name + "'");
  if (a.value != b.value) return both("value", num_text(a.value), num_text(b.value));
  if (a.domain != b.domain) return both("domain", domain_text(a.domain), domain_text(b.domain));
  if (a.differentiable != b.differentiable) return "differentiable differs";
  if (a.location != b.location) return both("location", loc_text(a.location), loc_text(b.location));
  if (a.linear() != b.linear()) return "coefficients differ";
  return "semantics, surrogate or temperature differ";
}

}  // namespace

const nlohmann::ordered_json& Runtime::Impl::program_as_json() const {
  std::call_once(program_json->once, [this] { program_json->json = program_to_json(program); });
  return program_json->json;
}

nlohmann::ordered_json Runtime::snapshot() const {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["program"] = impl_->program_as_json();
  nlohmann::ordered_json state = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < impl_->state_names.size(); ++i) json_append(state, impl_->state_names[i], json_number(impl_->state[i]));
  j["state"] = std::move(state);
  j["steps"] = impl_->steps;
  j["max_steps"] = impl_->max_steps;
  return j;
}

std::string Runtime::snapshot_text() const {
  return snapshot().dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Result<Runtime> Runtime::at(std::span<const double> state, std::uint64_t steps) const {
  if (state.size() != impl_->state_names.size())
    return snapshot_error("expected " + std::to_string(impl_->state_names.size()) + " state values, got " +
                          std::to_string(state.size()));
  if (steps > impl_->max_steps)
    return snapshot_error("steps (" + std::to_string(steps) + ") exceed max_steps (" + std::to_string(impl_->max_steps) +
                          ")");
  for (std::size_t i = 0; i < state.size(); ++i)
    if (auto why = impl_->state_domains[i].check(state[i]))
      return snapshot_error("state '" + impl_->state_names[i] + "': " + *why);
  auto copy = clone();
  if (!copy) return copy.error();
  copy->impl_->state.assign(state.begin(), state.end());
  copy->impl_->steps = steps;
  return copy;
}

Result<Runtime> Runtime::restore_text(std::string_view snapshot_text, const Bindings* bindings) {
  auto json = parse_json_limited(snapshot_text);
  if (!json) return snapshot_error(json.error().message);
  return restore(*json, bindings);
}

Result<Runtime> Runtime::restore(const nlohmann::ordered_json& root, const Bindings* bindings) {
  if (!root.is_object()) return snapshot_error(std::string("expected a JSON object, got ") + root.type_name());
  for (const auto& [key, _] : root.items()) {
    if (key != "format" && key != "version" && key != "program" && key != "state" && key != "steps" &&
        key != "max_steps")
      return snapshot_error("unknown field '" + key + "'");
  }
  auto format = root.find("format");
  if (format == root.end()) return snapshot_error("missing field 'format'");
  if (!format->is_string() || format->get<std::string>() != kFormat)
    return snapshot_error("field 'format' must be \"tensorcode.snapshot\", got " + short_json(*format));
  auto version = read_count(root, "version");
  if (!version) return version.error();
  if (*version != kVersion)
    return snapshot_error("unsupported version " + std::to_string(*version) + " (this build reads version 1)");

  auto program_json = root.find("program");
  if (program_json == root.end()) return snapshot_error("missing field 'program'");
  auto program = program_from_json(*program_json);
  if (!program) return snapshot_error("field 'program': " + program.error().message);

  auto steps = read_count(root, "steps");
  if (!steps) return steps.error();
  auto max_steps = read_count(root, "max_steps");
  if (!max_steps) return max_steps.error();
  if (*steps > *max_steps)
    return snapshot_error("steps (" + std::to_string(*steps) + ") exceed max_steps (" + std::to_string(*max_steps) +
                          ")");

  auto state_json = root.find("state");
  if (state_json == root.end()) return snapshot_error("missing field 'state'");
  if (!state_json->is_object())
    return snapshot_error(std::string("field 'state' must be an object, got ") + state_json->type_name());

  auto runtime = create(std::move(*program), *max_steps, bindings);
  if (!runtime) return snapshot_error("field 'program': " + runtime.error().message);
  Impl& m = *runtime->impl_;
  for (const auto& [name, _] : state_json->items()) {
    bool found = false;
    for (const std::string& s : m.state_names) found = found || s == name;
    if (!found) return snapshot_error("field 'state': the program has no state '" + name + "'");
  }
  for (std::size_t i = 0; i < m.state_names.size(); ++i) {
    const std::string& name = m.state_names[i];
    auto it = state_json->find(name);
    if (it == state_json->end()) return snapshot_error("field 'state': missing state '" + name + "'");
    if (!it->is_number())
      return snapshot_error("field 'state': state '" + name + "': " + short_json(*it) + " is not a number");
    const double v = it->get<double>();
    if (auto why = m.state_domains[i].check(v)) return snapshot_error("field 'state': state '" + name + "': " + *why);
    m.state[i] = v;
  }
  m.steps = *steps;
  return runtime;
}

std::optional<std::string> describe_program_difference(const Program& a, const Program& b) {
  if (a.semantics != b.semantics)
    return "semantics differ (" + std::string(to_string(a.semantics)) + " vs " + std::string(to_string(b.semantics)) +
           ")";
  if (a.dtype != b.dtype)
    return "dtype differs (" + std::string(to_string(a.dtype)) + " vs " + std::string(to_string(b.dtype)) + ")";
  if (a.surrogate != b.surrogate) return std::string("surrogate differs");
  if (a.temperature != b.temperature) return std::string("temperature differs");
  const std::size_t n = std::min(a.nodes.size(), b.nodes.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!(a.nodes[i] == b.nodes[i]))
      return describe_node(a, static_cast<NodeId>(i)) + ": " + node_field_difference(a.nodes[i], b.nodes[i]);
  if (a.nodes.size() != b.nodes.size())
    return "node counts differ (" + std::to_string(a.nodes.size()) + " vs " + std::to_string(b.nodes.size()) + ")";
  if (a.outputs != b.outputs) return std::string("outputs differ");
  if (a.updates != b.updates) return std::string("updates differ");
  return std::nullopt;
}

}  // namespace tc
