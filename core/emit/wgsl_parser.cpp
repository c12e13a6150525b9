#include "emit/wgsl_parser.h"

#include <cctype>

namespace tc::wgsl {

std::string_view type_name(Type t) {
  switch (t) {
    case Type::Invalid: return "<invalid>";
    case Type::F32: return "f32";
    case Type::U32: return "u32";
    case Type::Bool: return "bool";
    case Type::Vec3U32: return "vec3<u32>";
  }
  return "<invalid>";
}

namespace {

/// Deeper nesting than this is refused instead of risking the stack.
constexpr int kMaxDepth = 200;

struct Token {
  enum Kind { End, Ident, Number, Punct } kind = End;
  std::string text;
  SourceLoc loc;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : src_(text), file_(file) {}

  Result<Module> run() {
    if (!lex()) return err_;
    while (!at_end()) {
      if (failed_) break;
      if (peek_is("const")) parse_const();
      else if (peek_is("@")) parse_attributed();
      else fail(peek(), "expected 'const', '@group' or '@compute', found " + describe(peek()));
    }
    if (!failed_ && mod_.entry_name.empty()) fail(peek(), "the module has no '@compute' entry point");
    if (failed_) return err_;
    return std::move(mod_);
  }

 private:
  std::string_view src_;
  std::string file_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  Module mod_;
  bool failed_ = false;
  Diagnostic err_;
  int depth_ = 0;

  // ---- lexing
  bool lex() {
    int line = 1, col = 1;
    std::size_t i = 0;
    auto adv = [&](std::size_t k) {
      for (std::size_t j = 0; j < k; ++j) {
        if (src_[i] == '\n') { ++line; col = 1; } else ++col;
        ++i;
      }
    };
    while (i < src_.size()) {
      const char ch = src_[i];
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') { adv(1); continue; }
      if (ch == '/' && i + 1 < src_.size() && src_[i + 1] == '/') {
        while (i < src_.size() && src_[i] != '\n') adv(1);
        continue;
      }
      Token t;
      t.loc = {line, col};
      std::size_t j = i;
      if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
        while (j < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[j])) || src_[j] == '_')) ++j;
        t.kind = Token::Ident;
      } else if (std::isdigit(static_cast<unsigned char>(ch))) {
        // Decimal or hexadecimal literal, with optional fraction, exponent and suffix.
        if (ch == '0' && j + 1 < src_.size() && (src_[j + 1] == 'x' || src_[j + 1] == 'X')) {
          j += 2;
          while (j < src_.size() && (std::isxdigit(static_cast<unsigned char>(src_[j])) || src_[j] == '.')) ++j;
          if (j < src_.size() && (src_[j] == 'p' || src_[j] == 'P')) {
            ++j;
            if (j < src_.size() && (src_[j] == '+' || src_[j] == '-')) ++j;
            while (j < src_.size() && std::isdigit(static_cast<unsigned char>(src_[j]))) ++j;
          }
        } else {
          while (j < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[j])) || src_[j] == '.')) ++j;
          if (j < src_.size() && (src_[j] == 'e' || src_[j] == 'E')) {
            ++j;
            if (j < src_.size() && (src_[j] == '+' || src_[j] == '-')) ++j;
            while (j < src_.size() && std::isdigit(static_cast<unsigned char>(src_[j]))) ++j;
          }
        }
        if (j < src_.size() && (src_[j] == 'f' || src_[j] == 'u' || src_[j] == 'i' || src_[j] == 'h')) ++j;
        t.kind = Token::Number;
      } else {
        static const char* two[] = {"==", "!=", "<=", ">=", "&&", "||", "->"};
        t.kind = Token::Punct;
        j = i + 1;
        for (const char* p : two)
          if (src_.substr(i, 2) == p) j = i + 2;
        if (j == i + 1 && std::string_view("{}()[]<>;:,=+-*/%!&|.@").find(ch) == std::string_view::npos) {
          err_ = located(t.loc, std::string("unexpected character '") + ch + "'");
          return false;
        }
      }
      t.text = std::string(src_.substr(i, j - i));
      adv(j - i);
      toks_.push_back(std::move(t));
    }
    Token end;
    end.loc = {line, col};
    toks_.push_back(end);
    return true;
  }

  // ---- helpers
  Diagnostic located(SourceLoc loc, const std::string& msg) {
    Diagnostic d = make_error(msg, loc);
    d.file = file_;
    return d;
  }
  void fail(const Token& t, const std::string& msg) {
    if (failed_) return;
    failed_ = true;
    err_ = located(t.loc, msg);
  }
  const Token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::End; }
  bool peek_is(std::string_view s, std::size_t k = 0) const {
    return peek(k).kind != Token::End && peek(k).text == s;
  }
  static std::string describe(const Token& t) {
    return t.kind == Token::End ? std::string("end of input") : "'" + t.text + "'";
  }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool expect(std::string_view s) {
    if (failed_) return false;
    if (!peek_is(s)) {
      fail(peek(), "expected '" + std::string(s) + "', found " + describe(peek()));
      return false;
    }
    next();
    return true;
  }
  std::string ident(const char* what) {
    if (failed_) return {};
    if (peek().kind != Token::Ident) {
      fail(peek(), std::string("expected ") + what + ", found " + describe(peek()));
      return {};
    }
    return next().text;
  }
  std::uint32_t small_int() {
    if (failed_) return 0;
    const Token& t = peek();
    std::string s = t.text;
    if (!s.empty() && (s.back() == 'u' || s.back() == 'i')) s.pop_back();
    if (t.kind != Token::Number || s.empty() || s.size() > 9 ||
        s.find_first_not_of("0123456789") != std::string::npos) {
      fail(t, "expected a small integer, found " + describe(t));
      return 0;
    }
    next();
    return static_cast<std::uint32_t>(std::stoul(s));
  }
  Type type() {
    if (failed_) return Type::Invalid;
    const Token& t = peek();
    if (peek_is("f32")) { next(); return Type::F32; }
    if (peek_is("u32")) { next(); return Type::U32; }
    if (peek_is("bool")) { next(); return Type::Bool; }
    if (peek_is("vec3")) {
      next();
      expect("<");
      if (!peek_is("u32")) { fail(peek(), "only vec3<u32> is supported"); return Type::Invalid; }
      next();
      expect(">");
      return Type::Vec3U32;
    }
    fail(t, "unsupported type " + describe(t) + " (the subset has f32, u32, bool and vec3<u32>)");
    return Type::Invalid;
  }

  // ---- declarations
  void parse_const() {
    ConstDecl c;
    c.loc = next().loc;
    c.name = ident("a constant name");
    expect(":");
    c.type = type();
    if (!failed_ && c.type != Type::F32 && c.type != Type::U32) fail(peek(), "constants must be f32 or u32");
    expect("=");
    c.value = expr();
    expect(";");
    mod_.consts.push_back(std::move(c));
  }

  struct Attr {
    std::string name;
    std::vector<Token> args;
    SourceLoc loc;
  };
  std::vector<Attr> attributes() {
    std::vector<Attr> out;
    while (!failed_ && peek_is("@")) {
      Attr a;
      a.loc = next().loc;
      a.name = ident("an attribute name");
      if (peek_is("(")) {
        next();
        while (!failed_ && !peek_is(")")) {
          if (at_end()) { fail(peek(), "unterminated attribute"); break; }
          a.args.push_back(next());
          if (peek_is(",")) next();
        }
        expect(")");
      }
      out.push_back(std::move(a));
    }
    return out;
  }
  static std::optional<std::uint32_t> attr_int(const Token& t) {
    std::string s = t.text;
    if (!s.empty() && (s.back() == 'u' || s.back() == 'i')) s.pop_back();
    if (t.kind != Token::Number || s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return static_cast<std::uint32_t>(std::stoul(s));
  }

  void parse_attributed() {
    const Token& first = peek();
    auto attrs = attributes();
    if (failed_) return;
    if (peek_is("var")) {
      BufferDecl b;
      bool group_ok = false, have_binding = false;
      for (const Attr& a : attrs) {
        auto v = a.args.size() == 1 ? attr_int(a.args[0]) : std::nullopt;
        if (a.name == "group" && v && *v == 0) group_ok = true;
        else if (a.name == "binding" && v) { b.binding = *v; have_binding = true; }
        else { fail(first, "unsupported attribute '@" + a.name + "' on a variable (the subset uses @group(0) @binding(N))"); return; }
      }
      if (!group_ok || !have_binding) { fail(first, "a buffer needs @group(0) and @binding(N)"); return; }
      b.loc = next().loc;
      expect("<");
      if (!peek_is("storage")) { fail(peek(), "only storage buffers are supported, found " + describe(peek())); return; }
      next();
      expect(",");
      if (peek_is("read")) b.writable = false;
      else if (peek_is("read_write")) b.writable = true;
      else { fail(peek(), "expected 'read' or 'read_write', found " + describe(peek())); return; }
      next();
      expect(">");
      b.name = ident("a buffer name");
      expect(":");
      if (!peek_is("array")) { fail(peek(), "buffers must be runtime arrays: array<f32> or array<u32>"); return; }
      next();
      expect("<");
      b.element = type();
      if (!failed_ && b.element != Type::F32 && b.element != Type::U32) { fail(peek(), "buffer elements must be f32 or u32"); return; }
      expect(">");
      expect(";");
      for (const BufferDecl& o : mod_.buffers)
        if (o.binding == b.binding && !failed_) fail(first, "binding " + std::to_string(b.binding) + " is declared twice");
      mod_.buffers.push_back(std::move(b));
      return;
    }
    if (peek_is("fn")) {
      bool compute = false, sized = false;
      for (const Attr& a : attrs) {
        if (a.name == "compute" && a.args.empty()) compute = true;
        else if (a.name == "workgroup_size" && a.args.size() == 3) {
          for (int k = 0; k < 3; ++k) {
            auto v = attr_int(a.args[static_cast<std::size_t>(k)]);
            if (!v || *v == 0 || *v > 1024) { fail(a.args[static_cast<std::size_t>(k)], "workgroup size must be an integer in 1..1024"); return; }
            mod_.workgroup[k] = *v;
          }
          sized = true;
        } else { fail(first, "unsupported attribute '@" + a.name + "' on a function (write @compute @workgroup_size(X, Y, Z))"); return; }
      }
      if (!compute || !sized) { fail(first, "the entry point needs @compute and @workgroup_size(X, Y, Z)"); return; }
      if (!mod_.entry_name.empty()) { fail(first, "only one entry point is supported"); return; }
      next();
      mod_.entry_name = ident("a function name");
      expect("(");
      auto pattrs = attributes();
      if (!failed_ && (pattrs.size() != 1 || pattrs[0].name != "builtin" || pattrs[0].args.size() != 1 ||
                       pattrs[0].args[0].text != "global_invocation_id")) {
        fail(peek(), "the entry point takes exactly @builtin(global_invocation_id) NAME: vec3<u32>");
        return;
      }
      mod_.gid_name = ident("a parameter name");
      expect(":");
      if (!failed_ && type() != Type::Vec3U32 && !failed_) { fail(peek(), "global_invocation_id must be vec3<u32>"); return; }
      expect(")");
      mod_.body = block();
      return;
    }
    fail(peek(), "expected 'var' or 'fn' after attributes, found " + describe(peek()));
  }

  // ---- statements
  std::vector<Stmt> block() {
    std::vector<Stmt> out;
    if (!expect("{")) return out;
    if (++depth_ > kMaxDepth) { fail(peek(), "blocks nested too deeply"); return out; }
    while (!failed_ && !peek_is("}")) {
      if (at_end()) { fail(peek(), "expected '}', found end of input"); break; }
      out.push_back(statement());
    }
    --depth_;
    expect("}");
    return out;
  }

  Stmt statement() {
    Stmt s;
    s.loc = peek().loc;
    if (peek_is("let")) {
      next();
      s.kind = Stmt::Let;
      s.name = ident("a name");
      if (peek_is(":")) { next(); s.declared = type(); }
      expect("=");
      s.value = expr();
      expect(";");
    } else if (peek_is("if")) {
      next();
      s.kind = Stmt::If;
      s.value = expr();
      s.body = block();
      if (peek_is("else")) fail(peek(), "'else' is not in the supported subset");
    } else if (peek().kind == Token::Ident && peek_is("[", 1)) {
      s.kind = Stmt::Store;
      s.name = next().text;
      next();
      s.index = expr();
      expect("]");
      expect("=");
      s.value = expr();
      expect(";");
    } else {
      fail(peek(), "unsupported statement starting with " + describe(peek()) +
                       " (the subset has let, if and buffer stores)");
    }
    return s;
  }

  // ---- expressions (precedence climbing, lowest first)
  int add(Expr e) {
    mod_.exprs.push_back(std::move(e));
    return static_cast<int>(mod_.exprs.size() - 1);
  }
  int binary(Expr::Kind, const std::string& op, int l, int r, SourceLoc loc) {
    Expr e;
    e.kind = Expr::Binary;
    e.text = op;
    e.kids = {l, r};
    e.loc = loc;
    return add(std::move(e));
  }

  int expr() {
    if (++depth_ > kMaxDepth) {
      fail(peek(), "expression nested too deeply");
      --depth_;
      return -1;
    }
    int r = level(0);
    --depth_;
    return r;
  }

  int level(int lvl) {
    static const std::vector<std::vector<std::string_view>> ops = {
        {"||"}, {"&&"}, {"|"}, {"&"}, {"==", "!=", "<", "<=", ">", ">="}, {"+", "-"}, {"*", "/", "%"}};
    if (failed_) return -1;
    if (lvl == static_cast<int>(ops.size())) return unary();
    int l = level(lvl + 1);
    while (!failed_) {
      bool matched = false;
      for (auto op : ops[static_cast<std::size_t>(lvl)]) {
        if (peek().kind == Token::Punct && peek().text == op) {
          SourceLoc loc = next().loc;
          int r = level(lvl + 1);
          l = binary(Expr::Binary, std::string(op), l, r, loc);
          matched = true;
          break;
        }
      }
      if (!matched) break;
    }
    return l;
  }

  int unary() {
    if (failed_) return -1;
    if (peek_is("-") || peek_is("!")) {
      if (++depth_ > kMaxDepth) { fail(peek(), "expression nested too deeply"); return -1; }
      Expr e;
      e.kind = Expr::Unary;
      e.loc = peek().loc;
      e.text = next().text;
      e.kids = {unary()};
      --depth_;
      return add(std::move(e));
    }
    return postfix();
  }

  int postfix() {
    int base = primary();
    while (!failed_) {
      if (peek_is("[")) {
        Expr e;
        e.kind = Expr::Index;
        e.loc = next().loc;
        int idx = expr();
        expect("]");
        e.kids = {base, idx};
        base = add(std::move(e));
      } else if (peek_is(".")) {
        Expr e;
        e.kind = Expr::Member;
        e.loc = next().loc;
        e.text = ident("a member name");
        e.kids = {base};
        base = add(std::move(e));
      } else {
        break;
      }
    }
    return base;
  }

  int primary() {
    if (failed_) return -1;
    const Token& t = peek();
    Expr e;
    e.loc = t.loc;
    if (t.kind == Token::Number) {
      next();
      e.text = t.text;
      const char suffix = t.text.back();
      if (suffix == 'u') e.kind = Expr::UintLit;
      else if (suffix == 'f' && !(t.text.size() > 2 && (t.text[1] == 'x' || t.text[1] == 'X') &&
                                  t.text.find_first_of("pP.") == std::string::npos))
        e.kind = Expr::FloatLit;
      else if (t.text.find_first_of(".eEpP") != std::string::npos && suffix != 'h' && suffix != 'i')
        e.kind = Expr::FloatLit;
      else {
        fail(t, "literal " + describe(t) + " needs a 'u' or 'f' suffix in the supported subset");
        return -1;
      }
      return add(std::move(e));
    }
    if (peek_is("true") || peek_is("false")) {
      next();
      e.kind = Expr::BoolLit;
      e.text = t.text;
      return add(std::move(e));
    }
    if (peek_is("(")) {
      next();
      int inner = expr();
      expect(")");
      return inner;
    }
    if (t.kind == Token::Ident) {
      next();
      e.text = t.text;
      if (t.text == "bitcast") {
        expect("<");
        e.cast = type();
        expect(">");
      }
      if (peek_is("(")) {
        next();
        e.kind = Expr::Call;
        while (!failed_ && !peek_is(")")) {
          e.kids.push_back(expr());
          if (!peek_is(")")) expect(",");
        }
        expect(")");
      } else if (t.text == "bitcast") {
        fail(peek(), "expected '(' after bitcast<T>");
      } else {
        e.kind = Expr::Ident;
      }
      return add(std::move(e));
    }
    fail(t, "expected an expression, found " + describe(t));
    return -1;
  }
};

}  // namespace

Result<Module> parse(std::string_view text, std::string_view file) { return Parser(text, file).run(); }

}  // namespace tc::wgsl
