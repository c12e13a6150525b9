#include "emit/onnx_emitter.h"
#include "codegen/emit_form.h"
#include "ir/math_functions.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "emit/protobuf_writer.h"

namespace tc::emit {

// The plans this emitter reads (which nodes are live, what each checks) are codegen's.
using namespace codegen;

namespace {

// TensorProto.DataType values (onnx.proto).
enum : std::int64_t { kFloat = 1, kInt64 = 7, kBool = 9, kDouble = 11 };

/// A boolean wire: statically false, statically true, or a tensor.
struct B {
  enum Kind { False, True, Tensor } kind = False;
  std::string name;
  static B f() { return {}; }
  static B t() { return {True, {}}; }
  static B of(std::string n) { return {Tensor, std::move(n)}; }
  bool is_false() const { return kind == False; }
  bool is_true() const { return kind == True; }
};

class OnnxGen {
 public:
  explicit OnnxGen(const CheckedPlan& plan) : p_(plan), prog_(plan.program) {
    const std::size_t n = prog_.nodes.size();
    val_.assign(n, "");
    batch_.assign(n, 0);
    own_.assign(n, B::f());
    failed_.assign(n, B::f());
    live_.assign(n, B::f());
  }

  Result<std::vector<std::uint8_t>> run() {
    if (auto s = check_names(); !s.ok()) return s.error();
    shape_ = op("Shape", {prog_.nodes[static_cast<std::size_t>(p_.inputs.front())].name});
    std::vector<B> input_fail;
    for (NodeId id : p_.inputs) input_fail.push_back(input(id));
    for (std::size_t i = 0; i < prog_.nodes.size(); ++i)
      if (p_.needed[i] && prog_.nodes[i].op != Op::Input) node(static_cast<NodeId>(i));
    liveness();
    // error_node: the lowest visited node whose own check failed, unless an
    // input was rejected first (the evaluator checks inputs before nodes).
    std::string r = i64(-1);
    for (std::size_t i = prog_.nodes.size(); i-- > 0;) {
      if (!p_.needed[i] || prog_.nodes[i].op == Op::Input) continue;
      B hit = band(live_[i], own_[i]);
      if (hit.is_false()) continue;
      r = where(hit, i64(static_cast<std::int64_t>(i)), r);
    }
    for (std::size_t k = p_.inputs.size(); k-- > 0;)
      if (!input_fail[k].is_false()) r = where(input_fail[k], i64(p_.inputs[k]), r);
    const std::string err = op("Expand", {r, shape_}, {}, "error_node");
    op("Not", {op("Equal", {err, i64(-1)})}, {}, "failed");
    for (std::size_t m = 0; m < prog_.outputs.size(); ++m) {
      const NodeId id = prog_.outputs[m].second;
      std::string x = val_[static_cast<std::size_t>(id)];
      if (p_.f32) x = cast(x, kFloat);
      if (!batch_[static_cast<std::size_t>(id)]) op("Expand", {x, shape_}, {}, prog_.outputs[m].first);
      else op("Identity", {x}, {}, prog_.outputs[m].first);
    }
    return model();
  }

 private:
  const CheckedPlan& p_;
  const Program& prog_;
  std::vector<std::string> nodes_, inits_;
  std::vector<std::string> val_;          // [node] name of its binary64 value
  std::vector<std::uint8_t> batch_;       // [node] value is [N] (else a scalar)
  std::vector<B> own_, failed_, live_;
  std::map<std::uint64_t, std::string> dconst_;
  std::map<std::int64_t, std::string> iconst_;
  std::string shape_, axes0_;
  std::size_t counter_ = 0;

  std::int64_t elem() const { return p_.f32 ? kFloat : kDouble; }

  Status check_names() {
    if (p_.inputs.empty())
      return make_error("the onnx backend needs at least one input: the batch size N is the inputs' length");
    std::set<std::string> seen;
    auto claim = [&](const std::string& name, const std::string& what) -> Status {
      if (name.rfind("tc/", 0) == 0)
        return make_error("the onnx backend reserves names starting with 'tc/': " + what + " '" + quote_user(name) + "'");
      if (!seen.insert(name).second)
        return make_error("the onnx graph would have two values named '" + quote_user(name) + "' (" + what +
                          "): ONNX names inputs, parameters and outputs in one namespace");
      return ok_status();
    };
    for (NodeId id : p_.inputs)
      if (auto s = claim(prog_.nodes[static_cast<std::size_t>(id)].name, "an input"); !s.ok()) return s;
    for (NodeId id : p_.params)
      if (auto s = claim(prog_.nodes[static_cast<std::size_t>(id)].name, "a parameter"); !s.ok()) return s;
    for (const auto& [name, id] : prog_.outputs)
      if (auto s = claim(name, "an output"); !s.ok()) return s;
    for (const char* extra : {"failed", "error_node"})
      if (auto s = claim(extra, "the checks' output"); !s.ok()) return s;
    return ok_status();
  }

  // ---- graph building
  struct Attr {
    std::string name;
    std::int64_t i;
  };

  std::string fresh() { return "tc/" + std::to_string(counter_++); }

  std::string op(const std::string& type, const std::vector<std::string>& ins, const std::vector<Attr>& attrs = {},
                 std::string out = {}) {
    if (out.empty()) out = fresh();
    ProtoWriter n;
    for (const auto& i : ins) n.bytes(1, i);
    n.bytes(2, out);
    n.bytes(4, type);
    for (const Attr& a : attrs) {
      ProtoWriter at;
      at.bytes(1, a.name);
      at.varint(3, a.i);
      at.varint(20, 2);  // AttributeType INT
      n.message(5, at);
    }
    nodes_.push_back(n.data());
    return out;
  }

  void initializer(const std::string& name, std::int64_t type, const std::string& raw,
                   const std::vector<std::int64_t>& dims = {}) {
    ProtoWriter t;
    for (std::int64_t d : dims) t.varint(1, d);
    t.varint(2, type);
    t.bytes(8, name);
    t.bytes(9, raw);
    inits_.push_back(t.data());
  }

  std::string d(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    auto it = dconst_.find(bits);
    if (it != dconst_.end()) return it->second;
    const std::string name = "tc/c" + std::to_string(dconst_.size());
    initializer(name, kDouble, ProtoWriter::raw_double(v));
    dconst_.emplace(bits, name);
    return name;
  }
  std::string i64(std::int64_t v) {
    auto it = iconst_.find(v);
    if (it != iconst_.end()) return it->second;
    const std::string name = "tc/i" + std::to_string(iconst_.size());
    initializer(name, kInt64, ProtoWriter::raw_int64(v));
    iconst_.emplace(v, name);
    return name;
  }
  std::string axes0() {
    if (axes0_.empty()) {
      axes0_ = "tc/axes0";
      initializer(axes0_, kInt64, ProtoWriter::raw_int64(0), {1});
    }
    return axes0_;
  }
  std::string cast(const std::string& x, std::int64_t to) { return op("Cast", {x}, {{"to", to}}); }
  /// The float32 dtype's rounding of a binary64 value (identity in float64).
  std::string R(const std::string& x) { return p_.f32 ? cast(cast(x, kFloat), kDouble) : x; }
  std::string where(const B& c, const std::string& yes, const std::string& no) {
    if (c.is_true()) return yes;
    if (c.is_false()) return no;
    return op("Where", {c.name, yes, no});
  }

  // Every helper here appends graph nodes or initializers as it is called, so
  // no call takes two of them as arguments: C++ leaves the order of function
  // arguments open (GCC and clang differ), and the model's bytes must not
  // depend on the compiler (the TypeScript build, clang, gives the bytes the
  // Python package, GCC, gives). Braced lists are evaluated in order.

  // ---- booleans, folded where statically known
  B bnot(const B& a) {
    if (a.is_false()) return B::t();
    if (a.is_true()) return B::f();
    return B::of(op("Not", {a.name}));
  }
  B bor(const B& a, const B& b) {
    if (a.is_true() || b.is_true()) return B::t();
    if (a.is_false()) return b;
    if (b.is_false()) return a;
    return B::of(op("Or", {a.name, b.name}));
  }
  B band(const B& a, const B& b) {
    if (a.is_false() || b.is_false()) return B::f();
    if (a.is_true()) return b;
    if (b.is_true()) return a;
    return B::of(op("And", {a.name, b.name}));
  }
  B cmp(const std::string& type, const std::string& a, const std::string& b) { return B::of(op(type, {a, b})); }
  B nonfinite(const std::string& x) { return B::of(op("IsNaN", {op("Sub", {x, x})})); }
  B domain_fails(const std::string& x, const Domain& dm) {
    const B above = cmp("GreaterOrEqual", x, d(dm.lo()));
    const B below = cmp("LessOrEqual", x, d(dm.hi()));
    B ok = band(above, below);
    if (dm.is_integral()) ok = band(ok, cmp("Equal", op("Floor", {x}), x));
    return bnot(ok);
  }
  /// `x` as an [N] tensor (scalars are broadcast).
  std::string batched(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    return batch_[i] ? val_[i] : op("Expand", {val_[i], shape_});
  }

  // ---- the circuit
  B input(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Node& node = prog_.nodes[i];
    const Domain& dm = *node.domain;
    std::string raw = node.name;
    if (p_.f32) raw = cast(raw, kDouble);
    const B raw_nonfinite = nonfinite(raw);
    B bad = bor(raw_nonfinite, domain_fails(raw, dm));
    std::string v = raw;
    if (p_.f32 || dm.type == DomainType::Float32) {
      // A float32 domain describes a binary32 input: it enters rounded, and
      // an integer that rounding would change is rejected.
      v = cast(cast(raw, kFloat), kDouble);
      bad = bor(bad, nonfinite(v));
      if (dm.is_integral()) bad = bor(bad, bnot(cmp("Equal", v, raw)));
    }
    val_[i] = v;
    batch_[i] = 1;
    return bad;
  }

  void node(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Node& node = prog_.nodes[i];
    const EmitForm form = emit_form(node);  // a composition is written as the op it is
    const auto& a = form.args;
    bool batch = false;
    for (NodeId x : a) batch = batch || batch_[static_cast<std::size_t>(x)];
    // A node over constants alone computes on an [N] tensor: ONNX Runtime
    // would fold it into an initializer, and its initializer sharing takes
    // -0 for +0.
    std::vector<std::string> args;
    for (NodeId x : a) args.push_back(val_[static_cast<std::size_t>(x)]);
    if (!batch && !a.empty() && !is_leaf(node.op)) {
      args[0] = batched(a[0]);
      batch = true;
    }
    auto arg = [&](std::size_t j) { return args[j]; };
    B own = B::f();
    std::string v;
    B select_failed = B::f();
    auto finite_check = [&] { own = bor(own, nonfinite(v)); };
    switch (form.op) {
      case Op::Input:
      case Op::State:
      case Op::Call:
        return;  // inputs are read first; state and calls are refused by the plan
      case Op::Constant:
        val_[i] = d(std::isfinite(p_.value[i]) ? p_.value[i] : 0.0);
        // -0 as a computed [N] tensor: initializer sharing would merge it with +0.
        if (p_.value[i] == 0.0 && std::signbit(p_.value[i])) {
          val_[i] = op("Neg", {op("Expand", {d(0.0), shape_})});
          batch_[i] = 1;
        }
        if (p_.leaf_error[i]) own_[i] = failed_[i] = B::t();
        return;
      case Op::Parameter:
        // The initializer carries the parameter's name and the program's dtype.
        initializer(node.name, elem(),
                    p_.f32 ? ProtoWriter::raw_float(static_cast<float>(p_.value[i])) : ProtoWriter::raw_double(p_.value[i]));
        val_[i] = p_.f32 ? cast(node.name, kDouble) : node.name;
        return;
      case Op::Add: v = R(op("Add", {arg(0), arg(1)})); finite_check(); break;
      case Op::Sub: v = R(op("Sub", {arg(0), arg(1)})); finite_check(); break;
      case Op::Mul: v = R(op("Mul", {arg(0), arg(1)})); finite_check(); break;
      case Op::Neg: v = op("Neg", {arg(0)}); finite_check(); break;
      case Op::Div:
        v = R(op("Div", {arg(0), arg(1)}));
        own = cmp("Equal", arg(1), d(0.0));
        finite_check();
        break;
      case Op::FloorDiv:
      case Op::Mod:
        v = R(divmod(arg(0), arg(1), node.op == Op::FloorDiv));
        own = cmp("Equal", arg(1), d(0.0));
        finite_check();
        break;
      case Op::Lt: v = cast(op("Less", {arg(0), arg(1)}), kDouble); break;
      case Op::Le: v = cast(op("LessOrEqual", {arg(0), arg(1)}), kDouble); break;
      case Op::Gt: v = cast(op("Greater", {arg(0), arg(1)}), kDouble); break;
      case Op::Ge: v = cast(op("GreaterOrEqual", {arg(0), arg(1)}), kDouble); break;
      case Op::Eq: v = cast(op("Equal", {arg(0), arg(1)}), kDouble); break;
      case Op::Ne: v = cast(op("Not", {op("Equal", {arg(0), arg(1)})}), kDouble); break;
      case Op::Select: {
        const B yes = bnot(cmp("Equal", arg(0), d(0.0)));
        // A gather from [no, yes], not Where: ONNX Runtime's float64 Where
        // turns a -0 taken from its first value into +0.
        v = pick({a[2], a[1]}, cast(yes.name, kInt64));
        batch = true;
        const auto c = static_cast<std::size_t>(a[0]), y = static_cast<std::size_t>(a[1]), n = static_cast<std::size_t>(a[2]);
        const B yes_failed = band(yes, failed_[y]);
        const B no_failed = band(bnot(yes), failed_[n]);
        select_failed = bor(failed_[c], bor(yes_failed, no_failed));
        break;
      }
      case Op::Raise:  // fails wherever it is live; the value is never read
        v = d(0.0);
        own = B::t();
        break;
      case Op::Relu:
        // Where, not Relu: the contract's relu(-0) is +0, ONNX Runtime's Relu keeps -0.
        v = op("Where", {op("Greater", {arg(0), d(0.0)}), arg(0), d(0.0)});
        break;
      case Op::Sigmoid: {
        // The contract's overflow-free formula over Exp: ONNX Runtime's
        // float64 Sigmoid loses all relative precision below about 1e-16.
        const std::string x = arg(0);
        const std::string e = op("Exp", {op("Neg", {op("Abs", {x})})});
        const std::string den = op("Add", {d(1.0), e});
        v = R(op("Where", {op("GreaterOrEqual", {x, d(0.0)}), op("Div", {d(1.0), den}), op("Div", {e, den})}));
        break;
      }
      case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
      case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh: {
        // The row's ONNX operator over float64 (math_functions.h; its
        // tolerance class is in docs/evaluator.md).
        const math_fn::Around& w = math_fn::of(form.op).onnx;
        std::string x = arg(0);
        if (w.pre_add != 0.0) x = op("Add", {d(w.pre_add), x});
        std::string e = op(w.name, {x});
        if (w.post_mul != 1.0) e = op("Mul", {e, d(w.post_mul)});
        if (w.post_add != 0.0) e = op("Add", {e, d(w.post_add)});
        v = R(e);
        finite_check();
        break;
      }
      case Op::Gather: {
        // The values stacked [n, N], the case's index gathered per column;
        // an invalid index reads position 0 and fails the node.
        const std::size_t count = a.size() - 1;
        const std::string ix = batched(a[0]);
        const B not_negative = cmp("GreaterOrEqual", ix, d(0.0));
        const B below_count = cmp("Less", ix, d(static_cast<double>(count)));
        const B whole = cmp("Equal", op("Floor", {ix}), ix);
        B valid = band(band(not_negative, below_count), whole);
        v = pick(std::vector<NodeId>(a.begin() + 1, a.end()), cast(where(valid, ix, d(0.0)), kInt64));
        own = bnot(valid);
        batch = true;
        break;
      }
      case Op::GatherOneHot: {
        const std::size_t half = a.size() / 2;
        // The first selector that is 1 picks its value (as on the CPU);
        // without one, position 0 (the node fails then).
        std::string at = i64(0);
        for (std::size_t j = half; j-- > 0;) at = op("Where", {op("Equal", {arg(j), d(1.0)}), i64(static_cast<std::int64_t>(j)), at});
        v = pick(std::vector<NodeId>(a.begin() + static_cast<std::ptrdiff_t>(half), a.end()), at);
        batch = true;
        B bad = B::f();
        std::string ones;
        for (std::size_t j = 0; j < half; ++j) {
          const B not_zero = bnot(cmp("Equal", arg(j), d(0.0)));
          const B not_one = bnot(cmp("Equal", arg(j), d(1.0)));
          bad = bor(bad, band(not_zero, not_one));
          const std::string one = cast(op("Equal", {arg(j), d(1.0)}), kDouble);
          ones = ones.empty() ? one : op("Add", {ones, one});
        }
        own = bor(bad, bnot(cmp("Equal", ones, d(1.0))));
        break;
      }
      case Op::Affine:
      case Op::SparseAffine: {
        // acc = c0*x0, then acc + ci*xi in the circuit's order, then + bias:
        // a chain of Mul and Add (MatMul may reassociate), rounded under float32.
        const LinearTerms& lin = node.linear();
        std::string acc;
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const std::size_t x = node.op == Op::Affine ? j : static_cast<std::size_t>(lin.indices[j]);
          const std::string term = R(op("Mul", {d(plan_round(p_, lin.coefficients[j])), arg(x)}));
          acc = acc.empty() ? term : R(op("Add", {acc, term}));
        }
        if (lin.bias) acc = R(op("Add", {acc, d(plan_round(p_, *lin.bias))}));
        v = acc;
        finite_check();
        break;
      }
      default: no_emitter_form("onnx", node.op);
    }
    if (p_.check_domain[i]) own = bor(own, domain_fails(v, *node.domain));
    val_[i] = v;
    batch_[i] = batch;
    own_[i] = own;
    B f = own;
    if (node.op == Op::Select) f = bor(f, select_failed);
    else
      for (NodeId x : a) f = bor(f, failed_[static_cast<std::size_t>(x)]);
    failed_[i] = f;
  }

  /// Value `index[c]` of `values` for each case c: the values stacked
  /// [n, N] and gathered per column, a copy that keeps every bit. `index`
  /// is an int64 [N] tensor within [0, n).
  std::string pick(const std::vector<NodeId>& values, const std::string& index) {
    std::vector<std::string> rows;
    for (NodeId x : values) rows.push_back(op("Unsqueeze", {batched(x), axes0()}));
    const std::string stacked = rows.size() == 1 ? rows[0] : op("Concat", rows, {{"axis", 0}});
    const std::string ix = op("Expand", {index, shape_});  // a constant decision is a scalar
    return op("Squeeze", {op("GatherElements", {stacked, op("Unsqueeze", {ix, axes0()})}, {{"axis", 0}}), axes0()});
  }

  /// Python's float divmod (kernels::py_divmod) spelled out elementwise.
  /// The Where steps give the right magnitude; the sign is set apart by a
  /// product with +-1, because ONNX Runtime may swap a Where's branches
  /// (fusing a Not into it) and its float64 Where turns a -0 taken from the
  /// first branch into +0. Python's modulo has the sign of b (a zero too);
  /// its floor quotient the sign of a / b (a zero quotient: copysign(0, a / b)).
  std::string divmod(const std::string& a, const std::string& b, bool want_div) {
    const std::string m0 = op("Mod", {a, b}, {{"fmod", 1}});
    const B b_neg = cmp("Less", b, d(0.0));
    const B m_nz = bnot(cmp("Equal", m0, d(0.0)));
    const B adjust = band(m_nz, B::of(op("Xor", {b_neg.name, op("Less", {m0, d(0.0)})})));
    if (!want_div) {
      const std::string m1 = where(adjust, op("Add", {m0, b}), m0);
      return op("Mul", {op("Abs", {m1}), op("Sign", {b})});
    }
    const std::string d0 = op("Div", {op("Sub", {a, m0}), b});
    const std::string d1 = where(adjust, op("Sub", {d0, d(1.0)}), d0);
    const std::string fl = op("Floor", {d1});
    const std::string frac = op("Sub", {d1, fl});
    const B round_up = cmp("Greater", frac, d(0.5));
    const std::string up = op("Add", {fl, d(1.0)});
    const std::string fl2 = where(round_up, up, fl);
    // The sign of a / b, also of a zero one: 1 / (a / b) is then infinite.
    const std::string inverse = op("Div", {d(1.0), op("Div", {a, b})});
    const B neg = cmp("Less", inverse, d(0.0));
    const std::string minus_one = d(-1.0);
    const std::string one = d(1.0);
    return op("Mul", {op("Abs", {fl2}), where(neg, minus_one, one)});
  }

  void liveness() {
    for (std::size_t i = prog_.nodes.size(); i-- > 0;) {
      if (!p_.needed[i]) continue;
      if (p_.always_live[i]) {
        live_[i] = B::t();
        continue;
      }
      B l = B::f();
      for (const UseEdge& e : p_.users[i]) {
        B term = live_[static_cast<std::size_t>(e.user)];
        if (e.kind != UseEdge::Always) {
          const NodeId c = prog_.nodes[static_cast<std::size_t>(e.user)].args[0];
          const std::string cv = val_[static_cast<std::size_t>(c)];
          B chosen = e.kind == UseEdge::SelectYes ? bnot(cmp("Equal", cv, d(0.0))) : cmp("Equal", cv, d(0.0));
          term = band(term, band(bnot(failed_[static_cast<std::size_t>(c)]), chosen));
        }
        l = bor(l, term);
      }
      live_[i] = l;
    }
  }

  // ---- the model
  static std::string value_info(const std::string& name, std::int64_t elem) {
    ProtoWriter dim;
    dim.bytes(2, "N");
    ProtoWriter shape;
    shape.message(1, dim);
    ProtoWriter tensor;
    tensor.varint(1, elem);
    tensor.message(2, shape);
    ProtoWriter type;
    type.message(1, tensor);
    ProtoWriter vi;
    vi.bytes(1, name);
    vi.message(2, type);
    return vi.data();
  }

  Result<std::vector<std::uint8_t>> model() {
    ProtoWriter g;
    for (const auto& n : nodes_) g.bytes(1, n);
    g.bytes(2, "tensorcode");
    for (const auto& t : inits_) g.bytes(5, t);
    g.bytes(10, "a checked tensorcode circuit over a batch of N cases: outputs by name, then failed and error_node");
    for (NodeId id : p_.inputs) g.bytes(11, value_info(prog_.nodes[static_cast<std::size_t>(id)].name, elem()));
    for (const auto& [name, id] : prog_.outputs) g.bytes(12, value_info(name, elem()));
    g.bytes(12, value_info("failed", kBool));
    g.bytes(12, value_info("error_node", kInt64));
    ProtoWriter opset;
    opset.bytes(1, "");
    opset.varint(2, kOnnxOpset);
    ProtoWriter m;
    m.varint(1, kOnnxIrVersion);
    m.bytes(2, "tensorcode");
    m.message(7, g);
    m.message(8, opset);
    const std::string& s = m.data();
    if (s.size() > (std::size_t{2} << 30) - 1)
      return make_error("the onnx model would exceed protobuf's 2 GiB limit (" + std::to_string(s.size()) + " bytes)");
    return std::vector<std::uint8_t>(s.begin(), s.end());
  }
};

}  // namespace

Result<std::vector<std::uint8_t>> emit_onnx(const CheckedPlan& plan) {
  OnnxGen g(plan);
  return g.run();
}

Result<std::vector<std::uint8_t>> emit_onnx(const Program& program) {
  auto plan = make_checked_plan(program, "onnx");
  if (!plan.ok()) return plan.error();
  return emit_onnx(*plan);
}

}  // namespace tc::emit
