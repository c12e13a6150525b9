// Lowers the parsed WGSL subset to SPIR-V assembly text (SPIR-V 1.3 for
// Vulkan 1.1). Type checking happens here, with errors located in the WGSL.
#include "base/bits.h"
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>
#include <utility>

#include "emit/spirv.h"
#include "emit/wgsl_parser.h"

namespace tc::emit {

namespace {

using wgsl::Expr;
using wgsl::Stmt;
using wgsl::Type;

struct Value {
  std::string id;
  Type type = Type::Invalid;
};

std::string spv_type(Type t) {
  switch (t) {
    case Type::F32: return "%f32";
    case Type::U32: return "%u32";
    case Type::Bool: return "%bool";
    case Type::Vec3U32: return "%v3u32";
    case Type::Invalid: break;
  }
  return "%invalid";
}

class Lowerer {
 public:
  Lowerer(const wgsl::Module& m, std::string_view file) : m_(m), file_(file) {}

  Result<std::string> run() {
    for (const wgsl::BufferDecl& b : m_.buffers) {
      if (buffers_.count(b.name) || b.name == m_.gid_name) return err(b.loc, "name '" + b.name + "' is declared twice");
      buffers_[b.name] = &b;
    }
    for (const wgsl::ConstDecl& c : m_.consts) {
      if (consts_.count(c.name) || buffers_.count(c.name)) return err(c.loc, "name '" + c.name + "' is declared twice");
      auto v = const_value(c.value);
      if (!v.ok()) return v.error();
      if (v->type != c.type)
        return err(c.loc, "constant '" + c.name + "' is declared " + std::string(type_name(c.type)) + " but its value is " +
                              std::string(type_name(v->type)));
      consts_[c.name] = *v;
    }
    line("%gidv = OpLoad %v3u32 %gid");
    scopes_.emplace_back();
    if (Status s = block(m_.body); !s.ok()) return s.error();
    return assemble();
  }

 private:
  const wgsl::Module& m_;
  std::string file_;
  std::map<std::string, const wgsl::BufferDecl*> buffers_;
  std::map<std::string, Value> consts_;
  std::vector<std::map<std::string, Value>> scopes_;
  std::map<std::string, std::string> constants_;  // id -> declaration, ordered by id for stable output
  std::string body_, decorations_;
  int next_ = 0;

  Diagnostic err(SourceLoc loc, const std::string& msg) {
    Diagnostic d = make_error(msg, loc);
    d.file = file_;
    return d;
  }
  void line(const std::string& s) { body_ += "  " + s + "\n"; }
  std::string fresh() { return "%t" + std::to_string(next_++); }

  std::string const_f32(float f) {
    const auto bits = float_bits(f);
    char name[32], lit[64];
    std::snprintf(name, sizeof name, "%%cf_%08x", bits);
    std::snprintf(lit, sizeof lit, "%a", static_cast<double>(f));
    constants_.try_emplace(name, std::string(name) + " = OpConstant %f32 " + lit);
    return name;
  }
  std::string const_u32(std::uint32_t v) {
    const std::string name = "%cu_" + std::to_string(v);
    constants_.try_emplace(name, name + " = OpConstant %u32 " + std::to_string(v));
    return name;
  }
  std::string const_bool(bool b) {
    const std::string name = b ? "%ctrue" : "%cfalse";
    constants_.try_emplace(name, name + (b ? " = OpConstantTrue %bool" : " = OpConstantFalse %bool"));
    return name;
  }

  /// Parses a float or u32 literal exactly; float literals must be exact in float32.
  Result<Value> literal(const Expr& e) {
    std::string s = e.text;
    if (e.kind == Expr::UintLit) {
      s.pop_back();
      char* end = nullptr;
      errno = 0;
      unsigned long long v = std::strtoull(s.c_str(), &end, 0);
      if (errno || *end || v > 0xffffffffull) return err(e.loc, "u32 literal '" + e.text + "' is out of range");
      return Value{const_u32(static_cast<std::uint32_t>(v)), Type::U32};
    }
    if (!s.empty() && s.back() == 'f') s.pop_back();
    char* end = nullptr;
    errno = 0;
    double d = std::strtod(s.c_str(), &end);
    if (*end || !std::isfinite(d)) return err(e.loc, "malformed float literal '" + e.text + "'");
    const float f = static_cast<float>(d);
    if (!std::isfinite(f)) return err(e.loc, "float literal '" + e.text + "' overflows f32");
    return Value{const_f32(f), Type::F32};
  }

  /// Module-scope constant: a literal, optionally negated.
  Result<Value> const_value(int idx) {
    const Expr& e = m_.exprs[static_cast<std::size_t>(idx)];
    if (e.kind == Expr::FloatLit || e.kind == Expr::UintLit) return literal(e);
    if (e.kind == Expr::Unary && e.text == "-") {
      const Expr& k = m_.exprs[static_cast<std::size_t>(e.kids[0])];
      if (k.kind == Expr::FloatLit) {
        auto v = literal(k);
        if (!v.ok()) return v;
        std::string s = k.text;
        s.pop_back();
        const float f = -static_cast<float>(std::strtod(s.c_str(), nullptr));
        return Value{const_f32(f), Type::F32};
      }
    }
    return err(e.loc, "a module constant must be a float or u32 literal (optionally negated)");
  }

  Result<Value> lookup(const Expr& e) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(e.text);
      if (f != it->end()) return f->second;
    }
    if (auto f = consts_.find(e.text); f != consts_.end()) return f->second;
    if (e.text == m_.gid_name) return Value{"%gidv", Type::Vec3U32};
    if (buffers_.count(e.text)) return err(e.loc, "buffer '" + e.text + "' can only be indexed");
    return err(e.loc, "unknown name '" + e.text + "'");
  }

  Result<Value> expr(int idx) {
    if (idx < 0) return err({}, "internal error: missing expression");
    const Expr& e = m_.exprs[static_cast<std::size_t>(idx)];
    switch (e.kind) {
      case Expr::FloatLit:
      case Expr::UintLit:
        return literal(e);
      case Expr::BoolLit:
        return Value{const_bool(e.text == "true"), Type::Bool};
      case Expr::Ident:
        return lookup(e);
      case Expr::Unary: {
        auto a = expr(e.kids[0]);
        if (!a.ok()) return a;
        const std::string r = fresh();
        if (e.text == "-" && a->type == Type::F32) {
          line(r + " = OpFNegate %f32 " + a->id);
          decorations_ += "OpDecorate " + r + " NoContraction\n";
          return Value{r, Type::F32};
        }
        if (e.text == "!" && a->type == Type::Bool) {
          line(r + " = OpLogicalNot %bool " + a->id);
          return Value{r, Type::Bool};
        }
        return err(e.loc, "operator '" + e.text + "' does not apply to " + std::string(type_name(a->type)));
      }
      case Expr::Binary:
        return binary(e);
      case Expr::Call:
        return call(e);
      case Expr::Index: {
        const Expr& base = m_.exprs[static_cast<std::size_t>(e.kids[0])];
        auto ptr = element_pointer(base, e.kids[1], e.loc);
        if (!ptr.ok()) return ptr;
        const std::string r = fresh();
        line(r + " = OpLoad " + spv_type(ptr->type) + " " + ptr->id);
        return Value{r, ptr->type};
      }
      case Expr::Member: {
        auto a = expr(e.kids[0]);
        if (!a.ok()) return a;
        if (a->type != Type::Vec3U32 || e.text.size() != 1 || std::string_view("xyz").find(e.text[0]) == std::string_view::npos)
          return err(e.loc, "member '." + e.text + "' is not supported on " + std::string(type_name(a->type)));
        const std::string r = fresh();
        line(r + " = OpCompositeExtract %u32 " + a->id + " " + std::to_string(e.text[0] - 'x'));
        return Value{r, Type::U32};
      }
    }
    return err(e.loc, "internal error: unknown expression");
  }

  /// Pointer to buffer element: the base must name a buffer, the index be u32.
  Result<Value> element_pointer(const Expr& base, int index, SourceLoc loc) {
    if (base.kind != Expr::Ident || !buffers_.count(base.text))
      return err(loc, "only storage buffers can be indexed");
    const wgsl::BufferDecl& b = *buffers_.at(base.text);
    auto i = expr(index);
    if (!i.ok()) return i;
    if (i->type != Type::U32) return err(loc, "buffer index must be u32, found " + std::string(type_name(i->type)));
    const std::string r = fresh();
    const char* suffix = b.element == Type::F32 ? "f32" : "u32";
    line(r + " = OpAccessChain %pe_" + suffix + " %buf_" + b.name + " " + const_u32(0) + " " + i->id);
    return Value{r, b.element};
  }

  Result<Value> binary(const Expr& e) {
    auto a = expr(e.kids[0]);
    if (!a.ok()) return a;
    auto b = expr(e.kids[1]);
    if (!b.ok()) return b;
    if (a->type != b->type)
      return err(e.loc, "operands of '" + e.text + "' differ in type: " + std::string(type_name(a->type)) + " and " +
                            std::string(type_name(b->type)));
    const std::string& op = e.text;
    const Type t = a->type;
    std::string inst;
    Type rt = t;
    const bool cmp = op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
    if (cmp) rt = Type::Bool;
    bool nocontract = false;
    if (t == Type::F32) {
      static const std::map<std::string, std::string> f = {
          {"+", "OpFAdd"}, {"-", "OpFSub"}, {"*", "OpFMul"}, {"/", "OpFDiv"},
          {"==", "OpFOrdEqual"}, {"!=", "OpFUnordNotEqual"}, {"<", "OpFOrdLessThan"},
          {"<=", "OpFOrdLessThanEqual"}, {">", "OpFOrdGreaterThan"}, {">=", "OpFOrdGreaterThanEqual"}};
      if (auto it = f.find(op); it != f.end()) inst = it->second;
      nocontract = !cmp;
    } else if (t == Type::U32) {
      static const std::map<std::string, std::string> u = {
          {"+", "OpIAdd"}, {"-", "OpISub"}, {"*", "OpIMul"}, {"&", "OpBitwiseAnd"}, {"|", "OpBitwiseOr"},
          {"==", "OpIEqual"}, {"!=", "OpINotEqual"}, {"<", "OpULessThan"}, {"<=", "OpULessThanEqual"},
          {">", "OpUGreaterThan"}, {">=", "OpUGreaterThanEqual"}};
      if (auto it = u.find(op); it != u.end()) inst = it->second;
    } else if (t == Type::Bool) {
      static const std::map<std::string, std::string> l = {
          {"&&", "OpLogicalAnd"}, {"||", "OpLogicalOr"}, {"==", "OpLogicalEqual"}, {"!=", "OpLogicalNotEqual"}};
      if (auto it = l.find(op); it != l.end()) inst = it->second;
    }
    if (inst.empty())
      return err(e.loc, "operator '" + op + "' is not supported on " + std::string(type_name(t)) + " in the subset");
    const std::string r = fresh();
    line(r + " = " + inst + " " + spv_type(rt) + " " + a->id + " " + b->id);
    if (nocontract) decorations_ += "OpDecorate " + r + " NoContraction\n";
    return Value{r, rt};
  }

  Result<Value> call(const Expr& e) {
    std::vector<Value> args;
    for (int k : e.kids) {
      auto v = expr(k);
      if (!v.ok()) return v;
      args.push_back(*v);
    }
    const std::string& f = e.text;
    auto want = [&](std::initializer_list<Type> ts) -> Status {
      if (args.size() != ts.size())
        return err(e.loc, "'" + f + "' takes " + std::to_string(ts.size()) + " arguments, found " + std::to_string(args.size()));
      std::size_t k = 0;
      for (Type t : ts) {
        if (args[k].type != t)
          return err(e.loc, "argument " + std::to_string(k + 1) + " of '" + f + "' must be " + std::string(type_name(t)) +
                                ", found " + std::string(type_name(args[k].type)));
        ++k;
      }
      return ok_status();
    };
    const std::string r = fresh();
    // The f32 builtins of one argument the emitter writes, by their
    // GLSL.std.450 instruction.
    static constexpr std::pair<std::string_view, const char*> kGlsl[] = {
        {"floor", "Floor"}, {"exp", "Exp"}, {"abs", "FAbs"}, {"sqrt", "Sqrt"}, {"log", "Log"}, {"log2", "Log2"},
        {"sin", "Sin"},     {"cos", "Cos"}, {"tan", "Tan"},   {"atan", "Atan"}, {"tanh", "Tanh"}};
    for (const auto& [name, g] : kGlsl) {
      if (f != name) continue;
      if (Status s = want({Type::F32}); !s.ok()) return s.error();
      line(r + " = OpExtInst %f32 %glsl " + g + " " + args[0].id);
      return Value{r, Type::F32};
    }
    if (f == "select") {
      if (args.size() != 3 || args[2].type != Type::Bool || args[0].type != args[1].type ||
          (args[0].type != Type::F32 && args[0].type != Type::U32 && args[0].type != Type::Bool))
        return err(e.loc, "select takes (T, T, bool) with T one of f32, u32, bool");
      line(r + " = OpSelect " + spv_type(args[0].type) + " " + args[2].id + " " + args[1].id + " " + args[0].id);
      return Value{r, args[0].type};
    }
    if (f == "bitcast") {
      if (args.size() != 1) return err(e.loc, "bitcast takes one argument");
      const bool ok = (e.cast == Type::U32 && args[0].type == Type::F32) || (e.cast == Type::F32 && args[0].type == Type::U32);
      if (!ok) return err(e.loc, "only bitcast<u32>(f32) and bitcast<f32>(u32) are supported");
      line(r + " = OpBitcast " + spv_type(e.cast) + " " + args[0].id);
      return Value{r, e.cast};
    }
    if (f == "f32" || f == "u32") {
      if (args.size() != 1) return err(e.loc, "'" + f + "' takes one argument");
      const Type to = f == "f32" ? Type::F32 : Type::U32;
      if (args[0].type == to) return args[0];
      if (to == Type::F32 && args[0].type == Type::U32) line(r + " = OpConvertUToF %f32 " + args[0].id);
      else if (to == Type::U32 && args[0].type == Type::F32) line(r + " = OpConvertFToU %u32 " + args[0].id);
      else return err(e.loc, "cannot convert " + std::string(type_name(args[0].type)) + " to " + f);
      return Value{r, to};
    }
    return err(e.loc, "function '" + f + "' is not in the supported subset");
  }

  Status block(const std::vector<Stmt>& stmts) {
    for (const Stmt& s : stmts) {
      switch (s.kind) {
        case Stmt::Let: {
          if (scopes_.back().count(s.name) || consts_.count(s.name) || buffers_.count(s.name) || s.name == m_.gid_name)
            return err(s.loc, "'" + s.name + "' is already declared");
          auto v = expr(s.value);
          if (!v.ok()) return v.error();
          if (s.declared != Type::Invalid && s.declared != v->type)
            return err(s.loc, "'" + s.name + "' is declared " + std::string(type_name(s.declared)) + " but its value is " +
                                  std::string(type_name(v->type)));
          scopes_.back()[s.name] = *v;
          break;
        }
        case Stmt::Store: {
          auto it = buffers_.find(s.name);
          if (it == buffers_.end()) return err(s.loc, "'" + s.name + "' is not a storage buffer");
          if (!it->second->writable) return err(s.loc, "buffer '" + s.name + "' is read-only");
          Expr base;
          base.kind = Expr::Ident;
          base.text = s.name;
          auto ptr = element_pointer(base, s.index, s.loc);
          if (!ptr.ok()) return ptr.error();
          auto v = expr(s.value);
          if (!v.ok()) return v.error();
          if (v->type != ptr->type)
            return err(s.loc, "cannot store " + std::string(type_name(v->type)) + " into an array of " +
                                  std::string(type_name(ptr->type)));
          line("OpStore " + ptr->id + " " + v->id);
          break;
        }
        case Stmt::If: {
          auto c = expr(s.value);
          if (!c.ok()) return c.error();
          if (c->type != Type::Bool) return err(s.loc, "an if condition must be bool");
          const std::string then = fresh(), merge = fresh();
          line("OpSelectionMerge " + merge + " None");
          line("OpBranchConditional " + c->id + " " + then + " " + merge);
          line(then + " = OpLabel");
          scopes_.emplace_back();
          Status st = block(s.body);
          scopes_.pop_back();
          if (!st.ok()) return st;
          line("OpBranch " + merge);
          line(merge + " = OpLabel");
          break;
        }
      }
    }
    return ok_status();
  }

  std::string assemble() {
    std::string s;
    s += "; SPIR-V 1.3 (Vulkan 1.1) generated by tensorcode from WGSL\n";
    s += "OpCapability Shader\n";
    s += "%glsl = OpExtInstImport \"GLSL.std.450\"\n";
    s += "OpMemoryModel Logical GLSL450\n";
    s += "OpEntryPoint GLCompute %main \"" + m_.entry_name + "\" %gid\n";
    s += "OpExecutionMode %main LocalSize " + std::to_string(m_.workgroup[0]) + " " + std::to_string(m_.workgroup[1]) +
         " " + std::to_string(m_.workgroup[2]) + "\n";
    s += "OpDecorate %gid BuiltIn GlobalInvocationId\n";
    s += "OpDecorate %rt_f32 ArrayStride 4\nOpDecorate %rt_u32 ArrayStride 4\n";
    s += "OpMemberDecorate %st_f32 0 Offset 0\nOpMemberDecorate %st_u32 0 Offset 0\n";
    s += "OpDecorate %st_f32 Block\nOpDecorate %st_u32 Block\n";
    for (const auto& [name, b] : buffers_) {
      s += "OpDecorate %buf_" + name + " DescriptorSet 0\n";
      s += "OpDecorate %buf_" + name + " Binding " + std::to_string(b->binding) + "\n";
      if (!b->writable) s += "OpDecorate %buf_" + name + " NonWritable\n";
    }
    s += decorations_;
    s += "%void = OpTypeVoid\n%fnv = OpTypeFunction %void\n";
    s += "%f32 = OpTypeFloat 32\n%u32 = OpTypeInt 32 0\n%bool = OpTypeBool\n%v3u32 = OpTypeVector %u32 3\n";
    s += "%rt_f32 = OpTypeRuntimeArray %f32\n%rt_u32 = OpTypeRuntimeArray %u32\n";
    s += "%st_f32 = OpTypeStruct %rt_f32\n%st_u32 = OpTypeStruct %rt_u32\n";
    s += "%ps_f32 = OpTypePointer StorageBuffer %st_f32\n%ps_u32 = OpTypePointer StorageBuffer %st_u32\n";
    s += "%pe_f32 = OpTypePointer StorageBuffer %f32\n%pe_u32 = OpTypePointer StorageBuffer %u32\n";
    s += "%pin_v3u32 = OpTypePointer Input %v3u32\n";
    for (const auto& [id, decl] : constants_) s += decl + "\n";
    s += "%gid = OpVariable %pin_v3u32 Input\n";
    for (const auto& [name, b] : buffers_)
      s += "%buf_" + name + " = OpVariable %ps_" + (b->element == Type::F32 ? "f32" : "u32") + " StorageBuffer\n";
    s += "%main = OpFunction %void None %fnv\n%entry = OpLabel\n";
    s += body_;
    s += "  OpReturn\nOpFunctionEnd\n";
    return s;
  }
};

}  // namespace

Result<std::string> wgsl_to_spirv_asm(std::string_view wgsl_text, std::string_view file) {
  auto m = wgsl::parse(wgsl_text, file);
  if (!m.ok()) return m.error();
  return Lowerer(*m, file).run();
}

}  // namespace tc::emit
