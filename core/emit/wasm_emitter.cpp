#include "emit/wasm_emitter.h"
#include "codegen/emit_form.h"
#include "ir/math_functions.h"

#include "base/bits.h"
#include <cmath>
#include <cstring>
#include <functional>
#include <string>

namespace tc::emit {

// The plans this emitter reads (which nodes are live, what each checks) are codegen's.
using namespace codegen;

namespace {

using Bytes = std::vector<std::uint8_t>;

void uleb(Bytes& b, std::uint64_t v) {
  do {
    std::uint8_t byte = v & 0x7f;
    v >>= 7;
    if (v) byte |= 0x80;
    b.push_back(byte);
  } while (v);
}
void sleb(Bytes& b, std::int64_t v) {
  bool more = true;
  while (more) {
    std::uint8_t byte = v & 0x7f;
    v >>= 7;
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) more = false;
    else byte |= 0x80;
    b.push_back(byte);
  }
}
void name(Bytes& b, const std::string& s) {
  uleb(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}
void section(Bytes& out, std::uint8_t id, const Bytes& body) {
  out.push_back(id);
  uleb(out, body.size());
  out.insert(out.end(), body.begin(), body.end());
}

enum : std::uint8_t {
  I32 = 0x7f, F32 = 0x7d, F64 = 0x7c,
  kBlock = 0x02, kLoop = 0x03, kEnd = 0x0b, kBr = 0x0c, kBrIf = 0x0d, kCall = 0x10, kSelect = 0x1b,
  kLocalGet = 0x20, kLocalSet = 0x21,
  kI32Load = 0x28, kF32Load = 0x2a, kI32Store = 0x36, kF32Store = 0x38,
  kI32Const = 0x41, kF32Const = 0x43, kF64Const = 0x44,
  kI32Eqz = 0x45, kI32Eq = 0x46, kI32Ne = 0x47, kI32GeU = 0x4f,
  kF32Eq = 0x5b, kF32Ne = 0x5c, kF32Lt = 0x5d, kF32Gt = 0x5e, kF32Le = 0x5f, kF32Ge = 0x60,
  kF64Ge = 0x66,
  kI32Add = 0x6a, kI32Mul = 0x6c, kI32And = 0x71, kI32Or = 0x72, kI32Shl = 0x74,
  kF32Abs = 0x8b, kF32Neg = 0x8c, kF32Floor = 0x8e, kF32Sqrt = 0x91, kF32Add = 0x92, kF32Sub = 0x93, kF32Mul = 0x94, kF32Div = 0x95,
  kF64Abs = 0x99, kF64Neg = 0x9a, kF64Add = 0xa0, kF64Div = 0xa3,
  kF32DemoteF64 = 0xb6, kF64PromoteF32 = 0xbb, kI32ReinterpretF32 = 0xbc,
};

// Locals of `run`: parameters, then scratch locals.
enum : std::uint32_t {
  kInPtr = 0, kOutPtr, kErrPtr, kCount,  // parameters
  kCase, kR, kIe, kKind, kOnes, kBad,    // i32 locals
  kAcc, kRf, kQf, kAf, kBf, kMf,         // f32 locals
  kXd, kE, kD,                           // f64 locals
};

class WasmGen {
 public:
  explicit WasmGen(const Plan& p) : p_(p), prog_(p.program), n_(prog_.nodes.size()) {
    input_col_.assign(n_, -1);
    for (std::size_t k = 0; k < p_.inputs.size(); ++k) input_col_[static_cast<std::size_t>(p_.inputs[k])] = static_cast<int>(k);
  }

  Bytes module() {
    Bytes code = run_body();
    Bytes out = {0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00};
    Bytes types;
    uleb(types, 3);
    types.insert(types.end(), {0x60, 1, F64, 1, F64});
    types.insert(types.end(), {0x60, 4, I32, I32, I32, I32, 0});
    types.insert(types.end(), {0x60, 0, 1, I32});
    section(out, 1, types);
    // env.exp first (sigmoid calls index 0), then the math functions the
    // body called, in the order it first called them; `run` and
    // `heap_base` follow the imports.
    Bytes imports;
    uleb(imports, imports_.size());
    for (const std::string& js : imports_) {
      name(imports, "env");
      name(imports, js);
      imports.push_back(0x00);
      uleb(imports, 0);
    }
    section(out, 2, imports);
    const auto run_index = static_cast<std::uint32_t>(imports_.size());
    Bytes funcs;
    uleb(funcs, 2);
    uleb(funcs, 1);
    uleb(funcs, 2);
    section(out, 3, funcs);
    const std::uint64_t scratch = 12ull * n_ + 16;
    const std::uint64_t heap_base = (scratch + 15) / 16 * 16;
    Bytes mem;
    uleb(mem, 1);
    mem.push_back(0x00);
    uleb(mem, heap_base / 65536 + 1);
    section(out, 5, mem);
    Bytes exports;
    uleb(exports, 3);
    name(exports, "memory");
    exports.push_back(0x02);
    uleb(exports, 0);
    name(exports, "run");
    exports.push_back(0x00);
    uleb(exports, run_index);
    name(exports, "heap_base");
    exports.push_back(0x00);
    uleb(exports, run_index + 1);
    section(out, 7, exports);
    Bytes codes;
    uleb(codes, 2);
    uleb(codes, code.size());
    codes.insert(codes.end(), code.begin(), code.end());
    Bytes hb;
    uleb(hb, 0);  // no locals
    hb.push_back(kI32Const);
    sleb(hb, static_cast<std::int64_t>(heap_base));
    hb.push_back(kEnd);
    uleb(codes, hb.size());
    codes.insert(codes.end(), hb.begin(), hb.end());
    section(out, 10, codes);
    return out;
  }

 private:
  const Plan& p_;
  const Program& prog_;
  std::size_t n_;
  std::vector<int> input_col_;
  Bytes b_;
  std::vector<std::string> imports_{"exp"};  ///< env.<name> imports, (f64) -> f64 each

  /// The function index of import env.<js>, added on first use.
  std::uint32_t import_index(const std::string& js) {
    for (std::size_t k = 0; k < imports_.size(); ++k)
      if (imports_[k] == js) return static_cast<std::uint32_t>(k);
    imports_.push_back(js);
    return static_cast<std::uint32_t>(imports_.size() - 1);
  }

  void op(std::uint8_t o) { b_.push_back(o); }
  void i32c(std::int64_t v) { op(kI32Const); sleb(b_, static_cast<std::int32_t>(static_cast<std::uint32_t>(v))); }
  void f32c(float f) {
    op(kF32Const);
    auto bits = float_bits(f);
    for (int k = 0; k < 4; ++k) b_.push_back(static_cast<std::uint8_t>(bits >> (8 * k)));
  }
  void f64c(double d) {
    op(kF64Const);
    auto bits = double_bits(d);
    for (int k = 0; k < 8; ++k) b_.push_back(static_cast<std::uint8_t>(bits >> (8 * k)));
  }
  void get(std::uint32_t l) { op(kLocalGet); uleb(b_, l); }
  void set(std::uint32_t l) { op(kLocalSet); uleb(b_, l); }
  void mem(std::uint8_t o, std::uint64_t offset) { op(o); uleb(b_, 2); uleb(b_, offset); }

  std::uint64_t val_off(NodeId id) const { return 4ull * static_cast<std::uint64_t>(id); }
  std::uint64_t kind_off(NodeId id) const { return 4ull * n_ + 4ull * static_cast<std::uint64_t>(id); }
  std::uint64_t live_off(NodeId id) const { return 8ull * n_ + 4ull * static_cast<std::uint64_t>(id); }

  /// Pushes node `id`'s f32 value.
  void ld(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Op o = prog_.nodes[i].op;
    if (o == Op::Constant || o == Op::Parameter) { f32c(p_.leaf_nonfinite[i] ? 0.0f : p_.leaf_value[i]); return; }
    i32c(0);
    mem(kF32Load, val_off(id));
  }
  /// Pushes the byte address of element (k * count + case) of the buffer at local `ptr`.
  void column_addr(std::uint32_t ptr, std::uint32_t k) {
    get(ptr);
    i32c(k);
    get(kCount);
    op(kI32Mul);
    get(kCase);
    op(kI32Add);
    i32c(2);
    op(kI32Shl);
    op(kI32Add);
  }
  void nonfinite(NodeId id) {
    ld(id);
    op(kI32ReinterpretF32);
    i32c(0x7f800000);
    op(kI32And);
    i32c(0x7f800000);
    op(kI32Eq);
  }
  void domain_fails(NodeId id, const F32Check& c) {
    if (c.empty) { i32c(1); return; }
    if (c.boolean) {
      ld(id); f32c(0.0f); op(kF32Eq);
      ld(id); f32c(1.0f); op(kF32Eq);
      op(kI32Or);
    } else {
      ld(id); f32c(c.lo); op(kF32Ge);
      ld(id); f32c(c.hi); op(kF32Le);
      op(kI32And);
      if (c.integral) { ld(id); op(kF32Floor); ld(id); op(kF32Eq); op(kI32And); }
    }
    op(kI32Eqz);
  }

  using Cond = std::function<void()>;
  /// The kind local := the first of `checks` (priority order) that holds, else 0.
  void kind(const std::vector<std::pair<Cond, ErrorKind>>& checks) {
    i32c(0);
    set(kKind);
    for (auto it = checks.rbegin(); it != checks.rend(); ++it) {
      i32c(static_cast<std::int64_t>(it->second));
      get(kKind);
      it->first();
      op(kSelect);
      set(kKind);
    }
  }

  bool can_fail(NodeId id) const {
    return node_can_fail(p_, prog_, id);
  }

  void forward_node(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Node& node = prog_.nodes[i];
    const EmitForm form = emit_form(node);  // a composition is written as the op it is
    const auto& a = form.args;
    std::vector<std::pair<Cond, ErrorKind>> checks;
    auto arith = [&] { checks.push_back({[this, id] { nonfinite(id); }, ErrorKind::NonFinite}); };
    i32c(0);  // store address
    switch (form.op) {
      case Op::Input: column_addr(kInPtr, static_cast<std::uint32_t>(input_col_[i])); mem(kF32Load, 0); break;
      case Op::Parameter: case Op::Constant: case Op::State: case Op::Call: TC_ASSERT(false); break;
      case Op::Add: ld(a[0]); ld(a[1]); op(kF32Add); arith(); break;
      case Op::Sub: ld(a[0]); ld(a[1]); op(kF32Sub); arith(); break;
      case Op::Mul: ld(a[0]); ld(a[1]); op(kF32Mul); arith(); break;
      case Op::Neg: ld(a[0]); op(kF32Neg); arith(); break;
      case Op::Div: {
        ld(a[0]); ld(a[1]); op(kF32Div);
        NodeId b = a[1];
        checks.push_back({[this, b] { ld(b); f32c(0.0f); op(kF32Eq); }, ErrorKind::DivisionByZero});
        arith();
        break;
      }
      case Op::FloorDiv:
      case Op::Mod: {
        // Python's divmod with an exact fmod (see the WGSL emitter): long
        // division over 24 quotient bits, then the sign fix-up.
        const NodeId x = a[0], y = a[1];
        ld(x); op(kF32Abs); set(kAf);
        ld(y); op(kF32Abs); set(kBf);
        get(kAf); set(kRf);
        f32c(0.0f); set(kQf);
        for (int k = 23; k >= 0; --k) {
          const float p2 = std::ldexp(1.0f, k);
          get(kRf); get(kBf); f32c(p2); op(kF32Mul); op(kF32Ge); set(kOnes);
          get(kRf); get(kBf); f32c(p2); op(kF32Mul); op(kF32Sub); get(kRf); get(kOnes); op(kSelect); set(kRf);
          get(kQf); f32c(p2); op(kF32Add); get(kQf); get(kOnes); op(kSelect); set(kQf);
        }
        get(kRf); op(kF32Neg); get(kRf); ld(x); f32c(0.0f); op(kF32Lt); op(kSelect); set(kMf);
        get(kQf); op(kF32Neg); get(kQf); ld(x); f32c(0.0f); op(kF32Lt); ld(y); f32c(0.0f); op(kF32Lt); op(kI32Ne);
        op(kSelect); set(kQf);
        get(kMf); f32c(0.0f); op(kF32Ne); ld(y); f32c(0.0f); op(kF32Lt); get(kMf); f32c(0.0f); op(kF32Lt); op(kI32Ne);
        op(kI32And); set(kOnes);
        if (node.op == Op::Mod) { get(kMf); ld(y); op(kF32Add); get(kMf); }
        else { get(kQf); f32c(1.0f); op(kF32Sub); get(kQf); }
        get(kOnes);
        op(kSelect);
        checks.push_back({[this, y] { ld(y); f32c(0.0f); op(kF32Eq); }, ErrorKind::DivisionByZero});
        checks.push_back({[this, x, y] { ld(x); op(kF32Abs); ld(y); op(kF32Abs); f32c(16777216.0f); op(kF32Mul); op(kF32Ge); },
                          ErrorKind::QuotientRange});
        arith();
        break;
      }
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
        f32c(1.0f); f32c(0.0f); ld(a[0]); ld(a[1]);
        op(node.op == Op::Lt ? kF32Lt : node.op == Op::Le ? kF32Le : node.op == Op::Gt ? kF32Gt
           : node.op == Op::Ge ? kF32Ge : node.op == Op::Eq ? kF32Eq : kF32Ne);
        op(kSelect);
        break;
      }
      case Op::Select: ld(a[1]); ld(a[2]); ld(a[0]); f32c(0.0f); op(kF32Ne); op(kSelect); break;
      case Op::Raise:  // fails wherever it is live; the value is never read
        f32c(0.0f);
        checks.push_back({[this] { i32c(1); }, ErrorKind::Raised});
        break;
      case Op::Relu: ld(a[0]); f32c(0.0f); ld(a[0]); f32c(0.0f); op(kF32Gt); op(kSelect); break;
      case Op::Sigmoid:
        ld(a[0]); op(kF64PromoteF32); set(kXd);
        get(kXd); op(kF64Abs); op(kF64Neg); op(kCall); uleb(b_, 0); set(kE);
        f64c(1.0); get(kE); op(kF64Add); set(kD);
        f64c(1.0); get(kD); op(kF64Div);
        get(kE); get(kD); op(kF64Div);
        get(kXd); f64c(0.0); op(kF64Ge);
        op(kSelect);
        op(kF32DemoteF64);
        break;
      case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
      case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh: {
        // sqrt is an instruction (correctly rounded in f32); the others call
        // JavaScript's Math.<name> in float64 and round once, like sigmoid.
        const math_fn::MathFunction& f = math_fn::of(node.op);
        ld(a[0]);
        if (!f.js) {
          op(kF32Sqrt);
        } else {
          op(kF64PromoteF32);
          op(kCall);
          uleb(b_, import_index(f.js));
          op(kF32DemoteF64);
        }
        arith();
        break;
      }
      case Op::Gather: {
        const std::size_t count = a.size() - 1;
        ld(a[1]);
        set(kAcc);
        for (std::size_t k = 1; k < count; ++k) {
          ld(a[k + 1]); get(kAcc); ld(a[0]); f32c(static_cast<float>(k)); op(kF32Eq); op(kSelect); set(kAcc);
        }
        get(kAcc);
        NodeId ix = a[0];
        const float n = static_cast<float>(count);
        checks.push_back({[this, ix, n] {
                            ld(ix); f32c(0.0f); op(kF32Ge);
                            ld(ix); f32c(n); op(kF32Lt); op(kI32And);
                            ld(ix); op(kF32Floor); ld(ix); op(kF32Eq); op(kI32And);
                            op(kI32Eqz);
                          },
                          ErrorKind::InvalidIndex});
        break;
      }
      case Op::GatherOneHot: {
        const std::size_t half = a.size() / 2;
        f32c(0.0f); set(kAcc);
        i32c(0); set(kOnes);
        i32c(0); set(kBad);
        for (std::size_t k = 0; k < half; ++k) {
          ld(a[half + k]); get(kAcc); ld(a[k]); f32c(1.0f); op(kF32Eq); op(kSelect); set(kAcc);
          get(kOnes); ld(a[k]); f32c(1.0f); op(kF32Eq); op(kI32Add); set(kOnes);
          get(kBad); ld(a[k]); f32c(0.0f); op(kF32Ne); ld(a[k]); f32c(1.0f); op(kF32Ne); op(kI32And); op(kI32Or); set(kBad);
        }
        get(kAcc);
        checks.push_back({[this] { get(kBad); get(kOnes); i32c(1); op(kI32Ne); op(kI32Or); }, ErrorKind::OneHotSelection});
        break;
      }
      case Op::Affine:
      case Op::SparseAffine: {
        const LinearTerms& lin = node.linear();
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const NodeId x = node.op == Op::Affine ? a[j] : a[static_cast<std::size_t>(lin.indices[j])];
          f32c(static_cast<float>(lin.coefficients[j]));
          ld(x);
          op(kF32Mul);
          if (j > 0) op(kF32Add);
        }
        if (lin.coefficients.empty()) f32c(0.0f);
        if (lin.bias) { f32c(static_cast<float>(*lin.bias)); op(kF32Add); }
        arith();
        break;
      }
      default: no_emitter_form("wasm", node.op);
    }
    mem(kF32Store, val_off(id));
    if (p_.check[i] && node.op != Op::Input)
      checks.push_back({[this, id, c = *p_.check[i]] { domain_fails(id, c); }, ErrorKind::Domain});
    if (checks.empty()) return;
    kind(checks);
    i32c(0);
    get(kKind);
    mem(kI32Store, kind_off(id));
  }

  /// Pushes 1 when the edge from `e.user` into its argument holds.
  void edge(const UseEdge& e) {
    const Node& u = prog_.nodes[static_cast<std::size_t>(e.user)];
    if (p_.always_live[static_cast<std::size_t>(e.user)]) i32c(1);
    else { i32c(0); mem(kI32Load, live_off(e.user)); }
    switch (e.kind) {
      case UseEdge::Always: return;
      case UseEdge::SelectYes: ld(u.args[0]); f32c(0.0f); op(kF32Ne); break;
      case UseEdge::SelectNo: ld(u.args[0]); f32c(0.0f); op(kF32Eq); break;
    }
    op(kI32And);
  }

  Bytes run_body() {
    // Loop over cases: block { loop { br_if exit (case >= count); ...; case++; br loop } }
    op(kBlock); b_.push_back(0x40);
    op(kLoop); b_.push_back(0x40);
    get(kCase); get(kCount); op(kI32GeU); op(kBrIf); uleb(b_, 1);
    // Inputs: every column is checked first; the first failing input wins.
    i32c(0); set(kIe);
    for (NodeId id : p_.inputs) {
      const auto i = static_cast<std::size_t>(id);
      forward_node(id);
      std::vector<std::pair<Cond, ErrorKind>> checks{{[this, id] { nonfinite(id); }, ErrorKind::NonFinite}};
      if (p_.check[i]) checks.push_back({[this, id, c = *p_.check[i]] { domain_fails(id, c); }, ErrorKind::Domain});
      kind(checks);
      i32c(encode_error(id, ErrorKind::None)); get(kKind); op(kI32Or);
      get(kIe);
      get(kIe); op(kI32Eqz); get(kKind); i32c(0); op(kI32Ne); op(kI32And);
      op(kSelect);
      set(kIe);
    }
    for (std::size_t i = 0; i < n_; ++i) {
      const Op o = prog_.nodes[i].op;
      if (!p_.needed[i] || o == Op::Input || o == Op::Constant || o == Op::Parameter) continue;
      forward_node(static_cast<NodeId>(i));
    }
    // Liveness and the lowest live failure, in descending ids.
    i32c(0); set(kR);
    for (std::size_t i = n_; i-- > 0;) {
      const NodeId id = static_cast<NodeId>(i);
      const Op o = prog_.nodes[i].op;
      if (!p_.needed[i] || o == Op::Input) continue;
      const bool leaf = o == Op::Constant || o == Op::Parameter;
      if (leaf && !p_.leaf_error[i]) continue;
      if (!p_.always_live[i]) {
        i32c(0);
        bool first = true;
        for (const UseEdge& e : p_.users[i]) {
          edge(e);
          if (!first) op(kI32Or);
          first = false;
        }
        if (first) i32c(0);
        mem(kI32Store, live_off(id));
      }
      if (!leaf && !can_fail(id)) continue;
      // r = (live && kind != 0) ? code | kind : r
      i32c(encode_error(id, ErrorKind::None));
      if (leaf) i32c(static_cast<std::int64_t>(p_.leaf_error[i]));
      else { i32c(0); mem(kI32Load, kind_off(id)); }
      op(kI32Or);
      get(kR);
      if (leaf) i32c(1);
      else { i32c(0); mem(kI32Load, kind_off(id)); i32c(0); op(kI32Ne); }
      if (!p_.always_live[i]) { i32c(0); mem(kI32Load, live_off(id)); op(kI32And); }
      op(kSelect);
      set(kR);
    }
    for (std::size_t k = 0; k < p_.output_nodes.size(); ++k) {
      column_addr(kOutPtr, static_cast<std::uint32_t>(k));
      ld(p_.output_nodes[k]);
      mem(kF32Store, 0);
    }
    get(kErrPtr); get(kCase); i32c(2); op(kI32Shl); op(kI32Add);
    get(kIe); get(kR); get(kIe); op(kSelect);
    mem(kI32Store, 0);
    get(kCase); i32c(1); op(kI32Add); set(kCase);
    op(kBr); uleb(b_, 0);
    op(kEnd);
    op(kEnd);
    op(kEnd);
    Bytes body;
    uleb(body, 3);  // local groups
    uleb(body, 6); body.push_back(I32);
    uleb(body, 6); body.push_back(F32);
    uleb(body, 3); body.push_back(F64);
    body.insert(body.end(), b_.begin(), b_.end());
    return body;
  }
};

}  // namespace

std::vector<std::uint8_t> emit_wasm(const Plan& plan) { return WasmGen(plan).module(); }

Result<std::vector<std::uint8_t>> emit_wasm(const Program& program) {
  auto plan = make_plan(program, "wasm");
  if (!plan.ok()) return plan.error();
  return emit_wasm(*plan);
}

}  // namespace tc::emit
