#include "runtime/runtime.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "runtime/runtime_impl.h"
#include "runtime/trace.h"

namespace tc {

namespace {

std::string in_quotes(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('\'');
  out.append(s);
  out.push_back('\'');
  return out;
}

}  // namespace

std::string short_json(const nlohmann::ordered_json& value) {
  std::string s = value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

Result<Runtime> Runtime::create(Program program, std::uint64_t max_steps, const Bindings* bindings) {
  if (Status s = validate(program); !s) return s.error();
  auto impl = std::make_unique<Impl>();
  impl->program = std::move(program);
  impl->bindings = bindings;
  impl->max_steps = max_steps;
  const Program& p = impl->program;

  for (const Node& n : p.nodes) {
    if (n.op == Op::Input) {
      TC_ASSERT(n.domain.has_value());
      impl->inputs.push_back({n.name, n.id, *n.domain, DomainBounds(*n.domain)});
    } else if (n.op == Op::State) {
      TC_ASSERT(n.domain.has_value());
      if (auto why = n.domain->check(n.value))
        return make_error(describe_node(p, n.id) + ": initial value: " + *why, n.location, n.id);
      impl->state_names.push_back(n.name);
      impl->state_ids.push_back(n.id);
      impl->state_domains.push_back(*n.domain);
      impl->state_bounds.emplace_back(*n.domain);
      impl->state.push_back(n.value);
    }
  }
  impl->state_index.assign(p.nodes.size(), -1);
  for (std::size_t i = 0; i < impl->state_ids.size(); ++i)
    impl->state_index[static_cast<std::size_t>(impl->state_ids[i])] = static_cast<int>(i);
  for (const auto& [state, next] : p.updates)
    impl->updates.push_back({static_cast<std::size_t>(impl->state_index[static_cast<std::size_t>(state)]), next});
  for (const auto& [name, _] : p.outputs) impl->output_names.push_back(name);
  for (const Impl::InputInfo& in : impl->inputs) {
    impl->input_names.push_back(in.name);
    impl->input_is_boolean.push_back(in.domain.type == DomainType::Boolean);
  }
  impl->input_hint = impl->inputs_hint();
  impl->state_by_name.resize(impl->state_names.size());
  for (std::size_t i = 0; i < impl->state_by_name.size(); ++i) impl->state_by_name[i] = i;
  std::sort(impl->state_by_name.begin(), impl->state_by_name.end(),
            [&](std::size_t a, std::size_t b) { return impl->state_names[a] < impl->state_names[b]; });

  EvalOptions options;
  options.bindings = bindings;
  // The evaluator may keep a reference to the program: it lives in the
  // heap-allocated Impl, whose address never changes.
  auto evaluator = Evaluator::create(impl->program, options);
  if (!evaluator) return evaluator.error();
  impl->evaluator.emplace(std::move(*evaluator));
  return Runtime(std::move(impl));
}

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::Runtime(Runtime&&) noexcept = default;
Runtime& Runtime::operator=(Runtime&&) noexcept = default;
Runtime::~Runtime() = default;

Result<Runtime> Runtime::clone() const {
  auto copy = create(impl_->program, impl_->max_steps, impl_->bindings);
  if (!copy) return copy.error();
  copy->impl_->state = impl_->state;
  copy->impl_->steps = impl_->steps;
  copy->impl_->program_json = impl_->program_json;  // same program, same JSON
  return copy;
}

const Program& Runtime::program() const { return impl_->program; }
const Evaluator& Runtime::evaluator() const { return *impl_->evaluator; }
const std::vector<std::string>& Runtime::state_names() const { return impl_->state_names; }
const std::vector<NodeId>& Runtime::state_ids() const { return impl_->state_ids; }
const std::vector<std::string>& Runtime::output_names() const { return impl_->output_names; }
const std::vector<double>& Runtime::state() const { return impl_->state; }
NamedValues Runtime::state_map() const { return named_state(impl_->state); }
std::uint64_t Runtime::steps() const { return impl_->steps; }
std::uint64_t Runtime::max_steps() const { return impl_->max_steps; }

NamedValues Runtime::named_outputs(const StepResult& r) const {
  NamedValues out;
  for (std::size_t i = 0; i < impl_->output_names.size() && i < r.outputs.size(); ++i)
    out.emplace(impl_->output_names[i], r.outputs[i]);
  return out;
}

NamedValues Runtime::named_state(std::span<const double> state) const {
  NamedValues out;
  for (std::size_t i = 0; i < impl_->state_names.size() && i < state.size(); ++i)
    out.emplace(impl_->state_names[i], state[i]);
  return out;
}

Status Runtime::Impl::check_inputs(const NamedValues& values) const {
  // One lookup per input; an unknown name (found by counting) is reported
  // before a missing or out-of-domain input, since it is usually a typo of one.
  std::size_t known = 0;
  const InputInfo* missing = nullptr;
  const InputInfo* outside = nullptr;
  for (const InputInfo& in : inputs) {
    auto it = values.find(in.name);
    if (it == values.end()) {
      if (!missing && !outside) missing = &in;
      continue;
    }
    ++known;
    if (!missing && !outside && !in.bounds.contains(it->second) && in.domain.check(it->second)) outside = &in;
  }
  if (known != values.size()) {
    for (const auto& [name, _] : values) {
      bool found = false;
      for (const InputInfo& in : inputs) found = found || in.name == name;
      if (!found) return with_code(make_error("unknown input " + in_quotes(name) + inputs_hint()), DiagCode::UnknownInput);
    }
  }
  if (missing) return make_error("missing input " + in_quotes(missing->name));
  if (outside)
    return make_error("input " + in_quotes(outside->name) + ": " + *outside->domain.check(values.find(outside->name)->second));
  return ok_status();
}

std::string Runtime::Impl::inputs_hint() const {
  if (inputs.empty()) return " (the program has no inputs)";
  std::string out = " (the program's inputs are";
  for (std::size_t i = 0; i < inputs.size(); ++i) out += (i ? ", " : " ") + inputs[i].name;
  return out + ")";
}

Result<StepResult> Runtime::step(const NamedValues& inputs, const NamedValues& state) const {
  std::vector<double> vec(impl_->state_names.size());
  for (const auto& [name, _] : state) {
    bool found = false;
    for (const std::string& s : impl_->state_names) found = found || s == name;
    if (!found) return make_error("unknown state " + in_quotes(name));
  }
  for (std::size_t i = 0; i < vec.size(); ++i) {
    auto it = state.find(impl_->state_names[i]);
    if (it == state.end()) return make_error("missing state " + in_quotes(impl_->state_names[i]));
    vec[i] = it->second;
  }
  return step(inputs, vec);
}

Result<StepResult> Runtime::step(const NamedValues& inputs, std::span<const double> state, CaseTrace* trace) const {
  Env env;
  return impl_->evaluate(env, inputs, state, trace);
}

Result<StepResult> Runtime::Impl::evaluate(Env& env, const NamedValues& values, std::span<const double> old_state,
                                           CaseTrace* trace) const {
  if (old_state.size() != state_names.size())
    return make_error("expected " + std::to_string(state_names.size()) + " state values, got " +
                      std::to_string(old_state.size()));
  for (std::size_t i = 0; i < old_state.size(); ++i)
    if (!state_bounds[i].contains(old_state[i]))
      if (auto why = state_domains[i].check(old_state[i]))
        return make_error("state " + in_quotes(state_names[i]) + ": " + *why);
  if (Status s = check_inputs(values); !s) return s.error();

  // Map assignment reuses the nodes of an Env used before (dispatch keeps
  // one), so a step allocates nothing here after the first.
  env.inputs = values;
  if (env.state.size() != state_names.size()) {
    env.state.clear();
    for (std::size_t i = 0; i < state_names.size(); ++i) env.state.emplace(state_names[i], 0.0);
  }
  auto it = env.state.begin();
  for (std::size_t slot : state_by_name) (it++)->second = old_state[slot];

  auto run = evaluator->run(env, trace);
  if (!run) return run.error();

  StepResult out;
  out.outputs = std::move(run->outputs);
  out.state.assign(old_state.begin(), old_state.end());
  TC_ASSERT(run->next_state.size() == updates.size());
  // Every new value is checked before any is kept: the caller commits all or nothing.
  for (std::size_t k = 0; k < updates.size(); ++k) {
    const auto& [slot, next] = updates[k];
    const double v = run->next_state[k];
    if (!state_bounds[slot].contains(v)) {
      if (auto why = state_domains[slot].check(v)) {
        const Node& n = program.nodes[static_cast<std::size_t>(next)];
        return make_error(describe_node(program, next) + ": new value of state " + in_quotes(state_names[slot]) +
                              ": " + *why,
                          n.location, next);
      }
    }
    out.state[slot] = v;
  }
  return out;
}

Result<StepResult> Runtime::dispatch(const NamedValues& inputs, CaseTrace* trace) {
  if (impl_->steps >= impl_->max_steps)
    return make_error("step budget exhausted: " + std::to_string(impl_->steps) + " of " +
                      std::to_string(impl_->max_steps) + " steps used");
  auto r = impl_->evaluate(impl_->scratch, inputs, impl_->state, trace);
  if (!r) return r.error();
  impl_->state = r->state;  // commit: all new values together, and the step
  ++impl_->steps;
  return r;
}

ReplayResult Runtime::replay(std::span<const NamedValues> events, StepTrace* trace) {
  ReplayResult result;
  CaseTrace node_trace;
  std::vector<double> input_row;
  if (trace) {
    if (trace->empty()) {
      trace->begin(*this);
    } else if (trace->end_step() != impl_->steps || trace->state_ids() != impl_->state_ids) {
      result.failure = ReplayFailure{0, make_error("the trace ends at step " + std::to_string(trace->end_step()) +
                                                   " but the runtime is at step " + std::to_string(impl_->steps))};
      return result;
    }
    trace->reserve(events.size());
  }
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto r = dispatch(events[i], trace ? &node_trace : nullptr);
    if (!r) {
      result.failure = ReplayFailure{i, r.error()};
      return result;
    }
    ++result.committed;
    if (trace) {
      input_row.clear();
      for (const Impl::InputInfo& in : impl_->inputs) input_row.push_back(events[i].find(in.name)->second);
      trace->append(input_row, r->outputs, r->state, node_trace);
    }
  }
  return result;
}

Result<NamedValues> Runtime::event_from_json(const nlohmann::ordered_json& event) const {
  if (!event.is_object())
    return make_error(std::string("an event must be a JSON object of input values, got ") + event.type_name());
  NamedValues out;
  for (const auto& [name, value] : event.items()) {
    const Impl::InputInfo* input = nullptr;
    for (const Impl::InputInfo& in : impl_->inputs)
      if (in.name == name) input = &in;
    if (!input)
      return with_code(make_error("unknown input " + in_quotes(name) + impl_->inputs_hint()), DiagCode::UnknownInput);
    double v;
    if (value.is_number()) {
      v = value.get<double>();
      if (!std::isfinite(v)) return make_error("input " + in_quotes(name) + ": the value is not a finite number");
    } else if (value.is_boolean() && input->domain.type == DomainType::Boolean) {
      v = value.get<bool>() ? 1.0 : 0.0;
    } else {
      return make_error("input " + in_quotes(name) + ": " + short_json(value) + " is not a number");
    }
    out[name] = v;
  }
  return out;
}

}  // namespace tc
