#include "ir/builder.h"

#include <cmath>
#include <set>

namespace tc {

Builder::Builder(Semantics semantics, Surrogate surrogate, double temperature, Dtype dtype) {
  prog_.semantics = semantics;
  prog_.surrogate = surrogate;
  prog_.temperature = temperature;
  prog_.dtype = dtype;
}

void Builder::fail(std::string message) {
  if (!error_) error_ = make_error(std::move(message), loc_);
}

Value Builder::add_node(Node n) {
  n.id = static_cast<NodeId>(prog_.nodes.size());
  if (!n.location) n.location = loc_;
  if (n.iteration.empty()) n.iteration = iteration_;
  prog_.nodes.push_back(std::move(n));
  return Value(this, prog_.nodes.back().id);
}

NodeId Builder::resolve(const Arg& a) {
  if (const double* d = std::get_if<double>(&a.get())) return constant(*d).id();
  const Value& v = std::get<Value>(a.get());
  if (v.builder() != this) {
    fail(v.valid() ? "a value from another builder was used" : "an empty value was used");
    return constant(0).id();
  }
  return v.id();
}

Value Builder::input(const std::string& name, Domain domain, std::optional<bool> differentiable) {
  Node n;
  n.op = Op::Input;
  n.name = name;
  n.differentiable = differentiable.value_or(domain.is_floating());
  n.domain = domain;
  return add_node(std::move(n));
}

Value Builder::parameter(const std::string& name, double initial) {
  Node n;
  n.op = Op::Parameter;
  n.name = name;
  n.value = initial;
  n.differentiable = true;
  return add_node(std::move(n));
}

Value Builder::constant(double value) {
  if (!std::isfinite(value)) fail("constant " + std::to_string(value) + " is not finite");
  Node n;
  n.op = Op::Constant;
  n.value = std::isfinite(value) ? value : 0.0;
  return add_node(std::move(n));
}

Value Builder::state(const std::string& name, double initial, Domain domain) {
  Node n;
  n.op = Op::State;
  n.name = name;
  n.value = initial;
  n.domain = domain;
  return add_node(std::move(n));
}

void Builder::update(Value state, Arg next) {
  NodeId s = resolve(state);
  NodeId v = resolve(next);
  if (prog_.nodes[static_cast<std::size_t>(s)].op != Op::State) {
    fail("update() needs a state value, got " + describe_node(prog_, s));
    return;
  }
  for (const auto& [k, _] : prog_.updates)
    if (k == s) {
      fail("state '" + prog_.nodes[static_cast<std::size_t>(s)].name + "' is updated twice");
      return;
    }
  prog_.updates.emplace_back(s, v);
}

Value Builder::binary(Op op, Arg a, Arg b) {
  Node n;
  n.op = op;
  n.args = {resolve(a), resolve(b)};
  if (is_comparison(op)) n.domain = Domain::boolean();
  return add_node(std::move(n));
}

Value Builder::select(Arg condition, Arg yes, Arg no) {
  Node n;
  n.op = Op::Select;
  n.args = {resolve(condition), resolve(yes), resolve(no)};
  return add_node(std::move(n));
}

Value Builder::op(std::string_view name, std::vector<Arg> args) {
  auto op = op_from_name(name);
  if (!op) {
    fail("unknown op '" + std::string(name) + "'");
    return constant(0);
  }
  return this->op(*op, std::move(args));
}

Value Builder::op(Op op, std::vector<Arg> args) {
  const OpInfo& info = op_info(op);
  const std::string name(info.name);
  if (info.kind == OpKind::Leaf || info.has(kHasCoefficients) || info.has(kNamed)) {
    fail("op '" + name + "' has its own builder method");
    return constant(0);
  }
  const int nargs = static_cast<int>(args.size());
  if (nargs < info.min_args || (info.max_args >= 0 && nargs > info.max_args)) {
    fail("op '" + name + "' got " + std::to_string(nargs) + " arguments");
    return constant(0);
  }
  Node n;
  n.op = op;
  n.args.reserve(args.size());
  for (const Arg& a : args) n.args.push_back(resolve(a));
  if (is_comparison(op)) n.domain = Domain::boolean();
  return add_node(std::move(n));
}

Value Builder::gather(const std::vector<Arg>& values, Arg index) {
  if (values.empty()) {
    fail("gather() needs at least one value");
    return constant(0);
  }
  Node n;
  n.op = Op::Gather;
  n.args.push_back(resolve(index));
  for (const Arg& v : values) n.args.push_back(resolve(v));
  return add_node(std::move(n));
}

std::vector<Value> Builder::one_hot(Arg index, int n) {
  std::vector<Value> out;
  if (n <= 0) {
    fail("one_hot() needs a positive width");
    return out;
  }
  NodeId idx = resolve(index);
  for (int k = 0; k < n; ++k) out.push_back(binary(Op::Eq, Value(this, idx), Arg(k)));
  return out;
}

Value Builder::gather_one_hot(const std::vector<Arg>& selectors, const std::vector<Arg>& values) {
  if (selectors.empty() || selectors.size() != values.size()) {
    fail("gather_one_hot() needs as many selectors as values (at least one)");
    return constant(0);
  }
  Node n;
  n.op = Op::GatherOneHot;
  for (const Arg& s : selectors) n.args.push_back(resolve(s));
  for (const Arg& v : values) n.args.push_back(resolve(v));
  return add_node(std::move(n));
}

Value Builder::affine(const std::vector<Arg>& xs, const std::vector<double>& coefficients,
                      std::optional<double> bias) {
  if (xs.empty() || xs.size() != coefficients.size()) {
    fail("affine() needs one coefficient per argument (at least one)");
    return constant(0);
  }
  Node n;
  n.op = Op::Affine;
  for (const Arg& x : xs) n.args.push_back(resolve(x));
  n.edit_linear() = LinearTerms{coefficients, {}, bias};
  return add_node(std::move(n));
}

Value Builder::sparse_affine(const std::vector<Arg>& xs, const std::vector<std::int32_t>& indices,
                             const std::vector<double>& coefficients, std::optional<double> bias) {
  if (xs.empty() || indices.empty() || indices.size() != coefficients.size()) {
    fail("sparse_affine() needs one coefficient per index (at least one)");
    return constant(0);
  }
  Node n;
  n.op = Op::SparseAffine;
  for (const Arg& x : xs) n.args.push_back(resolve(x));
  n.edit_linear() = LinearTerms{coefficients, indices, bias};
  return add_node(std::move(n));
}

Value Builder::call(const std::string& binding, const std::vector<Arg>& args) {
  if (binding.empty()) {
    fail("call() needs a binding name");
    return constant(0);
  }
  Node n;
  n.op = Op::Call;
  n.name = binding;
  for (const Arg& a : args) n.args.push_back(resolve(a));
  return add_node(std::move(n));
}

Value Builder::raise(const std::string& exception) {
  if (exception.empty()) {
    fail("raise() needs the exception it raises");
    return constant(0);
  }
  Node n;
  n.op = Op::Raise;
  n.name = exception;
  return add_node(std::move(n));
}

std::map<std::string, Value> Builder::include(const Program& program, const std::map<std::string, Arg>& inputs,
                                              const std::string& prefix) {
  std::map<std::string, Value> outputs;
  if (Status s = validate(program); !s) {
    fail("include('" + prefix + "'): " + s.error().message);
    return outputs;
  }
  std::set<std::string> used;
  std::vector<NodeId> map(program.nodes.size(), -1);
  for (const Node& src : program.nodes) {
    Node n = src;
    n.args.clear();
    for (NodeId a : src.args) n.args.push_back(map[static_cast<std::size_t>(a)]);
    switch (src.op) {
      case Op::Input: {
        auto it = inputs.find(src.name);
        if (it == inputs.end()) {
          fail("include('" + prefix + "'): input '" + src.name + "' is not wired");
          map[static_cast<std::size_t>(src.id)] = constant(0).id();
          continue;
        }
        used.insert(src.name);
        map[static_cast<std::size_t>(src.id)] = resolve(it->second);
        continue;
      }
      case Op::Parameter:
      case Op::State:
        n.name = prefix + "." + src.name;
        break;
      case Op::Constant:
        break;
      default:  // every computing op keeps the semantics it was built with
        n.semantics = program.semantics_of(src);
        n.surrogate = program.surrogate_of(src);
        n.temperature = program.temperature_of(src);
        break;
    }
    n.location = src.location;
    // The including loop's iterations come first, then the included node's own.
    if (src.iteration.empty()) {
      n.iteration = iteration_;
    } else {
      std::vector<LoopStep> path(iteration_.begin(), iteration_.end());
      path.insert(path.end(), src.iteration.begin(), src.iteration.end());
      n.iteration = std::move(path);
    }
    map[static_cast<std::size_t>(src.id)] = add_node(std::move(n)).id();
  }
  for (const auto& [name, _] : inputs)
    if (!used.count(name)) fail("include('" + prefix + "'): the program has no input '" + name + "'");
  for (const auto& [state, next] : program.updates)
    prog_.updates.emplace_back(map[static_cast<std::size_t>(state)], map[static_cast<std::size_t>(next)]);
  for (const auto& [name, id] : program.outputs) outputs.emplace(name, Value(this, map[static_cast<std::size_t>(id)]));
  return outputs;
}

Value Builder::scan(const std::function<Value(Builder&, Value, Value)>& body, Arg init,
                    const std::vector<Arg>& sequence) {
  Value carry(this, resolve(init));
  for (const Arg& item : sequence) {
    Value it(this, resolve(item));
    carry = body(*this, carry, it);
    if (carry.builder() != this) {
      fail("scan() body returned a value from another builder");
      return constant(0);
    }
  }
  return carry;
}

void Builder::freeze(const std::vector<std::string>& names) { freeze_ = names; }

void Builder::set_domain(Value v, Domain d) {
  NodeId id = resolve(v);
  prog_.nodes[static_cast<std::size_t>(id)].domain = d;
}

void Builder::set_iteration_of(Value v, IterationPath path) {
  NodeId id = resolve(v);
  if (id >= 0 && static_cast<std::size_t>(id) < prog_.nodes.size())
    prog_.nodes[static_cast<std::size_t>(id)].iteration = std::move(path);
}

Result<Program> Builder::build(Arg result) { return build({{"result", result}}); }

Result<Program> Builder::build(const std::vector<std::pair<std::string, Arg>>& outputs) {
  return finish(outputs, /*validate_now=*/true);
}

Result<Program> Builder::build_then_validate_later(const std::vector<std::pair<std::string, Arg>>& outputs) {
  return finish(outputs, /*validate_now=*/false);
}

Result<Program> Builder::finish(const std::vector<std::pair<std::string, Arg>>& outputs, bool validate_now) {
  if (built_) return make_error("build() was already called on this builder");
  std::vector<std::pair<std::string, NodeId>> outs;
  for (const auto& [name, a] : outputs) outs.emplace_back(name, resolve(a));
  if (error_) return *error_;
  built_ = true;
  prog_.outputs = std::move(outs);
  Program p = std::move(prog_);
  if (freeze_) {
    auto frozen = tc::freeze(p, *freeze_);
    if (!frozen) return frozen.error();
    p = std::move(frozen.value());
  }
  if (validate_now) {
    if (Status s = validate(p); !s) return s.error();
  }
  return p;
}

Value operator+(Arg a, Arg b);

namespace {
Builder* owner(const Arg& a, const Arg& b) {
  if (auto* v = std::get_if<Value>(&a.get())) return v->builder();
  if (auto* v = std::get_if<Value>(&b.get())) return v->builder();
  return nullptr;
}
Value make(Op op, const Arg& a, const Arg& b) {
  Builder* bl = owner(a, b);
  TC_ASSERT(bl != nullptr);
  return bl->op(op, {a, b});
}
}  // namespace

Value operator+(Arg a, Arg b) { return make(Op::Add, a, b); }
Value operator-(Arg a, Arg b) { return make(Op::Sub, a, b); }
Value operator*(Arg a, Arg b) { return make(Op::Mul, a, b); }
Value operator/(Arg a, Arg b) { return make(Op::Div, a, b); }
Value operator-(Value a) {
  TC_ASSERT(a.builder() != nullptr);
  return a.builder()->op(Op::Neg, {a});
}
Value operator<(Arg a, Arg b) { return make(Op::Lt, a, b); }
Value operator<=(Arg a, Arg b) { return make(Op::Le, a, b); }
Value operator>(Arg a, Arg b) { return make(Op::Gt, a, b); }
Value operator>=(Arg a, Arg b) { return make(Op::Ge, a, b); }

}  // namespace tc
