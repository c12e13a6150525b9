#include "frontend/parser.h"

#include <optional>

#include "frontend/lexer.h"

namespace tc::py {

namespace {

// Internal only: unwinds a failed parse back to parse_module, which turns it
// into a Result. Nothing escapes the frontend's API.
struct SyntaxError {
  Diagnostic d;
};

class Parser {
 public:
  Parser(std::vector<Token> toks, const ParseLimits& lim) : t_(std::move(toks)), lim_(lim) {}

  Module module() {
    Module m;
    while (peek().kind != Tok::End) {
      if (peek().kind == Tok::Newline) { ++p_; continue; }
      if (peek().kind == Tok::Indent) fail("unexpected indent", peek().loc);
      if (peek().kind == Tok::Dedent) { ++p_; continue; }
      for (auto& s : statement()) m.body.push_back(std::move(s));
    }
    return m;
  }

 private:
  // ---- token helpers -------------------------------------------------------
  const Token& peek(std::size_t k = 0) const {
    std::size_t i = p_ + k;
    return i < t_.size() ? t_[i] : t_.back();
  }
  bool is_op(std::string_view s, std::size_t k = 0) const { return peek(k).kind == Tok::Op && peek(k).text == s; }
  bool is_kw(std::string_view s, std::size_t k = 0) const { return peek(k).kind == Tok::Name && peek(k).text == s; }
  bool accept_op(std::string_view s) {
    if (!is_op(s)) return false;
    ++p_;
    return true;
  }
  bool accept_kw(std::string_view s) {
    if (!is_kw(s)) return false;
    ++p_;
    return true;
  }
  [[noreturn]] void fail(std::string msg, SourceLoc loc) const { throw SyntaxError{make_error(std::move(msg), loc)}; }
  [[noreturn]] void unexpected(const std::string& wanted) const {
    const Token& t = peek();
    std::string got = t.kind == Tok::Newline ? "end of line"
                      : t.kind == Tok::End   ? "end of file"
                      : t.kind == Tok::Indent ? "an indented block"
                      : t.kind == Tok::Dedent ? "the end of the block"
                                              : "'" + t.text + "'";
    fail("invalid syntax: expected " + wanted + ", got " + got, t.loc);
  }
  void expect_op(std::string_view s) {
    if (!accept_op(s)) unexpected("'" + std::string(s) + "'");
  }
  void expect_kw(std::string_view s) {
    if (!accept_kw(s)) unexpected("'" + std::string(s) + "'");
  }
  void expect_newline() {
    if (peek().kind == Tok::Newline) { ++p_; return; }
    if (peek().kind == Tok::End || peek().kind == Tok::Dedent) return;
    unexpected("end of line");
  }

  struct Guard {
    explicit Guard(Parser* p) : p_(p) {
      if (++p_->nesting_ > p_->lim_.max_nesting)
        p_->fail("code is nested too deeply (more than " + std::to_string(p_->lim_.max_nesting) +
                     " levels of brackets, operators or blocks); simplify it",
                 p_->peek().loc);
    }
    ~Guard() { --p_->nesting_; }
    Parser* p_;
  };

  ExprPtr node(ExprKind k, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = loc;
    e->outer = loc;
    return e;
  }
  ExprPtr finish(ExprPtr e) {
    int d = 0;
    for (const auto& k : e->kids)
      if (k && k->depth > d) d = k->depth;
    e->depth = d + 1;
    if (e->depth > lim_.max_expression_depth)
      fail("expression is too deeply nested (more than " + std::to_string(lim_.max_expression_depth) +
               " levels); split it into several assignments",
           e->outer);
    return e;
  }
  ExprPtr unsupported(std::string what, SourceLoc loc) {
    auto e = node(ExprKind::Unsupported, loc);
    e->text = std::move(what);
    return e;
  }

  bool starts_expression() const {
    const Token& t = peek();
    if (t.kind == Tok::Name) {
      if (!is_keyword(t.text)) return true;
      return t.text == "True" || t.text == "False" || t.text == "None" || t.text == "not" || t.text == "lambda" ||
             t.text == "await" || t.text == "yield";
    }
    if (t.kind == Tok::Number || t.kind == Tok::String) return true;
    if (t.kind == Tok::Op)
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~" ||
             t.text == "*" || t.text == "...";
    return false;
  }

  // ---- expressions -----------------------------------------------------------
  // namedexpr: test [':=' test]
  ExprPtr namedexpr() {
    ExprPtr e = test();
    if (is_op(":=")) {
      SourceLoc loc = e->outer;
      ++p_;
      auto u = unsupported("assignment expressions (':=')", loc);
      u->kids.push_back(std::move(e));
      u->kids.push_back(test());
      return finish(std::move(u));
    }
    return e;
  }

  // star_expr | namedexpr
  ExprPtr star_or_named() {
    if (is_op("*")) {
      SourceLoc loc = peek().loc;
      ++p_;
      auto u = unsupported("starred expressions ('*x')", loc);
      u->kids.push_back(bitor_expr());
      return finish(std::move(u));
    }
    return namedexpr();
  }

  ExprPtr test() {
    // No guard here: a bracket already costs one level in atom(), and the
    // message's "levels of brackets" must be the user's count. Only the
    // recursion of a conditional expression's else part is guarded.
    if (is_kw("lambda")) return lambda();
    if (is_kw("yield")) return yield_expr();
    ExprPtr body = or_test();
    if (is_kw("if")) {
      ++p_;
      auto e = node(ExprKind::IfExp, body->outer);
      ExprPtr cond = or_test();
      expect_kw("else");
      Guard g(this);  // `a if c else b if d else ...` recurses here
      ExprPtr orelse = test();
      e->kids.push_back(std::move(cond));
      e->kids.push_back(std::move(body));
      e->kids.push_back(std::move(orelse));
      return finish(std::move(e));
    }
    return body;
  }

  ExprPtr lambda() {
    Guard g(this);  // `lambda: lambda: ...` recurses through test()
    SourceLoc loc = peek().loc;
    ++p_;
    int depth = 0;
    while (!(depth == 0 && is_op(":"))) {
      if (peek().kind == Tok::Newline || peek().kind == Tok::End) unexpected("':' after the lambda parameters");
      if (is_op("(") || is_op("[") || is_op("{")) ++depth;
      if (is_op(")") || is_op("]") || is_op("}")) --depth;
      ++p_;
    }
    ++p_;
    auto u = unsupported("lambda expressions", loc);
    u->kids.push_back(test());
    return finish(std::move(u));
  }

  ExprPtr yield_expr() {
    Guard g(this);
    SourceLoc loc = peek().loc;
    ++p_;
    auto u = unsupported("yield expressions (generators)", loc);
    accept_kw("from");
    if (starts_expression()) u->kids.push_back(testlist());
    return finish(std::move(u));
  }

  ExprPtr bool_chain(std::string_view kw, ExprPtr (Parser::*sub)()) {
    ExprPtr first = (this->*sub)();
    if (!is_kw(kw)) return first;
    auto e = node(ExprKind::BoolOp, first->outer);
    e->text = std::string(kw);
    e->kids.push_back(std::move(first));
    while (accept_kw(kw)) e->kids.push_back((this->*sub)());
    return finish(std::move(e));
  }
  ExprPtr or_test() { return bool_chain("or", &Parser::and_test); }
  ExprPtr and_test() { return bool_chain("and", &Parser::not_test); }

  ExprPtr not_test() {
    if (is_kw("not")) {
      Guard g(this);
      auto e = node(ExprKind::Unary, peek().loc);
      ++p_;
      e->text = "not";
      e->kids.push_back(not_test());
      return finish(std::move(e));
    }
    return comparison();
  }

  std::optional<std::string> comp_op() {
    static const char* ops[] = {"<", ">", "==", ">=", "<=", "!="};
    for (const char* o : ops)
      if (is_op(o)) { ++p_; return std::string(o); }
    if (is_kw("in")) { ++p_; return std::string("in"); }
    if (is_kw("not") && is_kw("in", 1)) { p_ += 2; return std::string("not in"); }
    if (is_kw("is")) {
      ++p_;
      if (accept_kw("not")) return std::string("is not");
      return std::string("is");
    }
    return std::nullopt;
  }

  ExprPtr comparison() {
    ExprPtr first = bitor_expr();
    SourceLoc op_loc = peek().loc;
    auto op = comp_op();
    if (!op) return first;
    auto e = node(ExprKind::Compare, first->outer);
    e->kids.push_back(std::move(first));
    while (op) {
      e->ops.push_back(*op);
      e->op_locs.push_back(op_loc);
      e->kids.push_back(bitor_expr());
      op_loc = peek().loc;
      op = comp_op();
    }
    return finish(std::move(e));
  }

  // Binary operator levels, lowest first.
  ExprPtr binary(int level) {
    static const std::vector<std::vector<std::string_view>> levels = {
        {"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}};
    if (level >= static_cast<int>(levels.size())) return factor();
    ExprPtr left = binary(level + 1);
    while (true) {
      std::string_view hit;
      for (std::string_view o : levels[static_cast<std::size_t>(level)])
        if (is_op(o)) hit = o;
      if (hit.empty()) return left;
      ++p_;
      auto e = node(ExprKind::Binary, left->outer);
      e->text = std::string(hit);
      e->kids.push_back(std::move(left));
      e->kids.push_back(binary(level + 1));
      left = finish(std::move(e));
    }
  }
  ExprPtr bitor_expr() { return binary(0); }

  ExprPtr factor() {
    if (is_op("-") || is_op("+") || is_op("~")) {
      Guard g(this);
      auto e = node(ExprKind::Unary, peek().loc);
      e->text = peek().text;
      ++p_;
      e->kids.push_back(factor());
      return finish(std::move(e));
    }
    return power();
  }

  ExprPtr power() {
    ExprPtr base;
    if (is_kw("await")) {
      SourceLoc loc = peek().loc;
      ++p_;
      base = unsupported("await expressions", loc);
      base->kids.push_back(primary());
      base = finish(std::move(base));
    } else {
      base = primary();
    }
    if (is_op("**")) {
      Guard g(this);  // right-associative: a ** b ** c ... recurses
      ++p_;
      auto e = node(ExprKind::Binary, base->outer);
      e->text = "**";
      e->kids.push_back(std::move(base));
      e->kids.push_back(factor());
      return finish(std::move(e));
    }
    return base;
  }

  ExprPtr primary() {
    ExprPtr e = atom();
    while (true) {
      if (is_op("(")) {
        Guard g(this);
        ++p_;
        auto c = node(ExprKind::Call, e->outer);
        c->kids.push_back(std::move(e));
        call_args(*c);
        e = finish(std::move(c));
      } else if (is_op("[")) {
        Guard g(this);
        ++p_;
        auto s = node(ExprKind::Subscript, e->outer);
        s->kids.push_back(std::move(e));
        s->kids.push_back(subscript_index());
        expect_op("]");
        e = finish(std::move(s));
      } else if (is_op(".")) {
        ++p_;
        if (peek().kind != Tok::Name || is_keyword(peek().text)) unexpected("an attribute name");
        auto a = node(ExprKind::Attribute, e->outer);
        a->text = peek().text;
        ++p_;
        a->kids.push_back(std::move(e));
        e = finish(std::move(a));
      } else {
        return e;
      }
    }
  }

  void call_args(Expr& call) {
    while (!is_op(")")) {
      if (is_op("*") || is_op("**")) {
        if (call.problem.empty()) {
          call.problem = is_op("*") ? "unpacked arguments ('*args')" : "unpacked keyword arguments ('**kwargs')";
          call.problem_loc = peek().loc;
        }
        ++p_;
        call.kids.push_back(test());
        call.keywords.emplace_back("*");
      } else if (peek().kind == Tok::Name && is_op("=", 1)) {
        if (call.problem.empty()) {
          call.problem = "keyword arguments ('" + peek().text + "=')";
          call.problem_loc = peek().loc;
        }
        call.keywords.push_back(peek().text);
        p_ += 2;
        call.kids.push_back(test());
      } else {
        call.keywords.emplace_back();
        ExprPtr a = namedexpr();
        if (is_kw("for") || is_kw("async")) {
          SourceLoc loc = a->outer;
          comprehension_tail();
          a = unsupported("generator expressions", loc);
        }
        call.kids.push_back(std::move(a));
      }
      if (!accept_op(",")) break;
    }
    expect_op(")");
  }

  ExprPtr subscript_index() {
    SourceLoc loc = peek().loc;
    std::vector<ExprPtr> items;
    bool slice = false, tuple = false;
    while (true) {
      SourceLoc item_loc = peek().loc;
      ExprPtr item;
      if (!is_op(":")) item = namedexpr();
      if (is_op(":")) {
        slice = true;
        ++p_;
        if (!is_op(":") && !is_op("]") && !is_op(",")) test();
        if (accept_op(":"))
          if (!is_op("]") && !is_op(",")) test();
        item = unsupported("slices", item_loc);
      }
      items.push_back(std::move(item));
      if (!accept_op(",")) break;
      tuple = true;
      if (is_op("]")) break;
    }
    if (slice) return unsupported("slices ('a[i:j]')", loc);
    if (!tuple) return std::move(items[0]);
    auto t = node(ExprKind::Tuple, loc);
    t->kids = std::move(items);
    return finish(std::move(t));
  }

  // for target in iter [if cond]... (the part after the element)
  void comprehension_tail() {
    while (is_kw("for") || is_kw("async")) {
      accept_kw("async");
      expect_kw("for");
      target_list();
      expect_kw("in");
      or_test();
      while (accept_kw("if")) or_test();
    }
  }

  ExprPtr target_list() {
    ExprPtr first = star_target();
    if (!is_op(",")) return first;
    auto t = node(ExprKind::Tuple, first->outer);
    t->kids.push_back(std::move(first));
    while (accept_op(",")) {
      if (is_kw("in") || is_op("=")) break;
      t->kids.push_back(star_target());
    }
    return finish(std::move(t));
  }
  ExprPtr star_target() {
    if (is_op("*")) {
      SourceLoc loc = peek().loc;
      ++p_;
      auto u = unsupported("starred targets ('*x')", loc);
      u->kids.push_back(bitor_expr());
      return finish(std::move(u));
    }
    return bitor_expr();
  }

  ExprPtr atom() {
    Guard g(this);
    const Token& t = peek();
    SourceLoc loc = t.loc;
    switch (t.kind) {
      case Tok::Number: {
        auto e = node(ExprKind::Number, loc);
        e->number = t.number;
        e->is_float = t.is_float;
        e->too_large = t.too_large;
        e->text = t.text;
        ++p_;
        return e;
      }
      case Tok::String: {
        auto e = node(ExprKind::String, loc);
        while (peek().kind == Tok::String) {
          e->text += peek().text;
          ++p_;
        }
        return e;
      }
      case Tok::Name: {
        if (t.text == "True" || t.text == "False") {
          auto e = node(ExprKind::Bool, loc);
          e->number = t.text == "True" ? 1.0 : 0.0;
          e->text = t.text;
          ++p_;
          return e;
        }
        if (t.text == "None") {
          ++p_;
          return node(ExprKind::NoneLit, loc);
        }
        if (is_keyword(t.text)) unexpected("an expression");
        auto e = node(ExprKind::Name, loc);
        e->text = t.text;
        ++p_;
        return e;
      }
      case Tok::Op: {
        if (t.text == "(" || t.text == "[") {
          bool list = t.text == "[";
          const char* close = list ? "]" : ")";
          ++p_;
          if (accept_op(close)) {
            auto e = node(list ? ExprKind::List : ExprKind::Tuple, loc);
            return e;
          }
          if (!list && is_kw("yield")) {
            ExprPtr y = yield_expr();
            expect_op(")");
            return y;
          }
          ExprPtr first = star_or_named();
          if (is_kw("for") || is_kw("async")) {
            comprehension_tail();
            expect_op(close);
            return unsupported(list ? "list comprehensions" : "generator expressions", loc);
          }
          if (!list && !is_op(",")) {
            expect_op(")");
            first->outer = loc;
            return first;
          }
          auto e = node(list ? ExprKind::List : ExprKind::Tuple, loc);
          e->kids.push_back(std::move(first));
          while (accept_op(",")) {
            if (is_op(close)) break;
            e->kids.push_back(star_or_named());
          }
          expect_op(close);
          return finish(std::move(e));
        }
        if (t.text == "{") {
          // Dicts and sets are outside the subset: skip the balanced display.
          int depth = 0;
          do {
            if (is_op("{") || is_op("(") || is_op("[")) ++depth;
            if (is_op("}") || is_op(")") || is_op("]")) --depth;
            ++p_;
          } while (depth > 0 && peek().kind != Tok::End);
          return unsupported("dictionaries and sets", loc);
        }
        if (t.text == "...") {
          ++p_;
          return unsupported("the ellipsis literal '...'", loc);
        }
        unexpected("an expression");
      }
      case Tok::Newline:
      case Tok::Indent:
      case Tok::Dedent:
      case Tok::End:
        unexpected("an expression");
    }
    unexpected("an expression");
  }

  // testlist: a, b, c  (a tuple when there is a comma)
  ExprPtr testlist() {
    ExprPtr first = star_or_named();
    if (!is_op(",")) return first;
    auto t = node(ExprKind::Tuple, first->outer);
    t->kids.push_back(std::move(first));
    while (accept_op(",")) {
      if (!starts_expression()) break;
      t->kids.push_back(star_or_named());
    }
    return finish(std::move(t));
  }

  // ---- statements --------------------------------------------------------------
  StmtPtr stmt(StmtKind k, SourceLoc loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->loc = loc;
    return s;
  }

  std::vector<StmtPtr> block() {
    Guard g(this);
    expect_op(":");
    std::vector<StmtPtr> out;
    if (peek().kind == Tok::Newline) {
      ++p_;
      if (peek().kind != Tok::Indent) unexpected("an indented block");
      ++p_;
      while (peek().kind != Tok::Dedent && peek().kind != Tok::End) {
        if (peek().kind == Tok::Newline) { ++p_; continue; }
        if (peek().kind == Tok::Indent) fail("unexpected indent", peek().loc);
        for (auto& s : statement()) out.push_back(std::move(s));
      }
      if (peek().kind == Tok::Dedent) ++p_;
    } else {
      out = simple_statements();
    }
    return out;
  }

  // Skips a compound statement's header up to its ':' (for constructs we reject anyway).
  void skip_header() {
    int depth = 0;
    while (!(depth == 0 && is_op(":"))) {
      if (peek().kind == Tok::Newline || peek().kind == Tok::End) unexpected("':'");
      if (is_op("(") || is_op("[") || is_op("{")) ++depth;
      if (is_op(")") || is_op("]") || is_op("}")) --depth;
      ++p_;
    }
  }

  std::vector<StmtPtr> statement() {
    std::vector<StmtPtr> out;
    const Token& t = peek();
    SourceLoc loc = t.loc;
    if (is_op("@") || is_kw("def") || (is_kw("async") && is_kw("def", 1))) {
      out.push_back(function_def());
      return out;
    }
    if (is_kw("if")) {
      out.push_back(if_stmt());
      return out;
    }
    if (is_kw("for") || (is_kw("async") && is_kw("for", 1))) {
      bool async = accept_kw("async");
      ++p_;
      auto s = stmt(StmtKind::For, loc);
      s->targets.push_back(target_list());
      expect_kw("in");
      s->value = testlist();
      s->body = block();
      if (is_kw("else")) {
        ++p_;
        s->orelse = block();
      }
      if (async) {
        s->kind = StmtKind::Unsupported;
        s->text = "async for loops";
      }
      out.push_back(std::move(s));
      return out;
    }
    if (is_kw("while")) {
      ++p_;
      auto s = stmt(StmtKind::Unsupported, loc);
      s->text = "while loops";
      s->value = namedexpr();
      s->body = block();
      if (accept_kw("else")) s->orelse = block();
      out.push_back(std::move(s));
      return out;
    }
    if (is_kw("class") || is_kw("with") || is_kw("try") || (is_kw("async") && is_kw("with", 1))) {
      std::string what = is_kw("class") ? "class definitions" : is_kw("try") ? "try statements" : "with statements";
      auto s = stmt(StmtKind::Unsupported, loc);
      s->text = what;
      bool is_try = is_kw("try");
      skip_header();
      s->body = block();
      while (is_try && (is_kw("except") || is_kw("else") || is_kw("finally"))) {
        skip_header();
        for (auto& b : block()) s->orelse.push_back(std::move(b));
      }
      out.push_back(std::move(s));
      return out;
    }
    if (is_match_statement()) {
      // `match` is a soft keyword: a match statement is refused as a whole
      // (its case blocks are not statements of the subset).
      auto s = stmt(StmtKind::Unsupported, loc);
      s->text = "match statements";
      skip_header();
      ++p_;  // ':'
      skip_block();
      out.push_back(std::move(s));
      return out;
    }
    if (t.kind == Tok::Name && (t.text == "elif" || t.text == "else" || t.text == "except" || t.text == "finally"))
      fail("invalid syntax: '" + t.text + "' without a matching statement before it", loc);
    return simple_statements();
  }

  // `match SUBJECT:` followed by an indented block: the soft keyword as
  // CPython reads it (`match = 1`, `match(x)` and `match.x` stay names).
  bool is_match_statement() const {
    if (!is_kw("match")) return false;
    const Token& next = peek(1);
    if (next.kind == Tok::Newline || next.kind == Tok::End) return false;
    if (next.kind == Tok::Op && next.text != "(" && next.text != "[" && next.text != "-" && next.text != "{" &&
        next.text != "*")
      return false;
    int depth = 0;
    for (std::size_t k = 1;; ++k) {
      const Token& t = peek(k);
      if (t.kind == Tok::Newline || t.kind == Tok::End) return false;
      if (t.kind != Tok::Op) continue;
      if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
      if (t.text == ")" || t.text == "]" || t.text == "}") --depth;
      if (depth == 0 && t.text == ":")
        return peek(k + 1).kind == Tok::Newline && peek(k + 2).kind == Tok::Indent;
    }
  }

  // Skips a NEWLINE INDENT ... DEDENT block without parsing it.
  void skip_block() {
    if (peek().kind != Tok::Newline) unexpected("end of line");
    ++p_;
    if (peek().kind != Tok::Indent) unexpected("an indented block");
    ++p_;
    int depth = 1;
    while (depth > 0 && peek().kind != Tok::End) {
      if (peek().kind == Tok::Indent) ++depth;
      if (peek().kind == Tok::Dedent) --depth;
      ++p_;
    }
  }

  std::string dotted_name() {
    if (peek().kind != Tok::Name || is_keyword(peek().text)) unexpected("a module name");
    std::string name = peek().text;
    ++p_;
    while (accept_op(".")) {
      if (peek().kind != Tok::Name || is_keyword(peek().text)) unexpected("a module name");
      name += "." + peek().text;
      ++p_;
    }
    return name;
  }

  std::string import_alias() {
    if (!accept_kw("as")) return {};
    if (peek().kind != Tok::Name || is_keyword(peek().text)) unexpected("a name after 'as'");
    std::string as = peek().text;
    ++p_;
    return as;
  }

  // import a.b [as c], d ... | from [.]a import (x [as y], ...) | from a import *
  StmtPtr import_statement(SourceLoc loc) {
    auto s = stmt(StmtKind::Import, loc);
    if (accept_kw("import")) {
      // `import a, b` binds several modules; the statement names them all
      // ("a, b") so only a line importing math alone passes.
      while (true) {
        SourceLoc at = peek().loc;
        std::string module = dotted_name();
        std::string as = import_alias();
        if (s->text.empty()) s->text = module;
        else if (module != s->text) s->text += ", " + module;
        s->imports.push_back({"", as.empty() ? module.substr(0, module.find('.')) : as, at});
        if (!accept_op(",")) break;
      }
      return s;
    }
    expect_kw("from");
    std::string module;
    while (is_op(".") || is_op("...")) module += peek().text, ++p_;
    if (!is_kw("import")) module += dotted_name();
    s->text = module;
    expect_kw("import");
    if (is_op("*")) {
      s->imports.push_back({"*", "*", peek().loc});
      ++p_;
      return s;
    }
    const bool paren = accept_op("(");
    while (true) {
      if (paren && is_op(")")) break;
      SourceLoc at = peek().loc;
      if (peek().kind != Tok::Name || is_keyword(peek().text)) unexpected("a name to import");
      std::string member = peek().text;
      ++p_;
      std::string as = import_alias();
      s->imports.push_back({member, as.empty() ? member : as, at});
      if (!accept_op(",")) break;
    }
    if (paren) expect_op(")");
    return s;
  }

  std::vector<StmtPtr> simple_statements() {
    std::vector<StmtPtr> out;
    out.push_back(simple_statement());
    while (accept_op(";")) {
      if (peek().kind == Tok::Newline || peek().kind == Tok::End) break;
      out.push_back(simple_statement());
    }
    expect_newline();
    return out;
  }

  void skip_to_line_end() {
    while (peek().kind != Tok::Newline && peek().kind != Tok::End && !is_op(";")) ++p_;
  }

  StmtPtr simple_statement() {
    const Token& t = peek();
    SourceLoc loc = t.loc;
    if (t.kind == Tok::Name) {
      if (t.text == "pass") { ++p_; return stmt(StmtKind::Pass, loc); }
      if (t.text == "break") { ++p_; return stmt(StmtKind::Break, loc); }
      if (t.text == "continue") { ++p_; return stmt(StmtKind::Continue, loc); }
      if (t.text == "return") {
        ++p_;
        auto s = stmt(StmtKind::Return, loc);
        if (starts_expression()) s->value = testlist();
        return s;
      }
      if (t.text == "import" || t.text == "from") return import_statement(loc);
      if (t.text == "raise") {
        ++p_;
        auto s = stmt(StmtKind::Raise, loc);
        if (starts_expression()) {
          s->value = test();
          if (accept_kw("from")) s->cause = test();
        }
        return s;
      }
      if (t.text == "assert") {
        ++p_;
        auto s = stmt(StmtKind::Assert, loc);
        s->value = test();
        if (accept_op(",")) s->cause = test();
        return s;
      }
      static const std::pair<const char*, const char*> skipped[] = {
          {"global", "global statements"}, {"nonlocal", "nonlocal statements"}, {"del", "del statements"}};
      for (const auto& [kw, what] : skipped)
        if (t.text == kw) {
          auto s = stmt(StmtKind::Unsupported, loc);
          s->text = what;
          ++p_;
          skip_to_line_end();
          return s;
        }
    }
    ExprPtr first = testlist();
    if (is_op("=")) {
      auto s = stmt(StmtKind::Assign, loc);
      s->targets.push_back(std::move(first));
      while (accept_op("=")) {
        ExprPtr rhs = is_kw("yield") ? yield_expr() : testlist();
        if (is_op("=")) {
          s->targets.push_back(std::move(rhs));
        } else {
          s->value = std::move(rhs);
        }
      }
      return s;
    }
    static const char* aug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", "<<=", ">>="};
    for (const char* a : aug)
      if (is_op(a)) {
        ++p_;
        auto s = stmt(StmtKind::AugAssign, loc);
        s->text = std::string(a, std::char_traits<char>::length(a) - 1);
        s->targets.push_back(std::move(first));
        s->value = testlist();
        return s;
      }
    if (is_op(":")) {
      ++p_;
      auto s = stmt(StmtKind::AnnAssign, loc);
      s->targets.push_back(std::move(first));
      s->annotation = test();
      if (accept_op("=")) s->value = testlist();
      return s;
    }
    auto s = stmt(StmtKind::Expr, loc);
    s->value = std::move(first);
    return s;
  }

  StmtPtr if_stmt() {
    Guard g(this);  // each elif nests one level deeper
    SourceLoc loc = peek().loc;
    ++p_;  // 'if' or 'elif'
    auto s = stmt(StmtKind::If, loc);
    s->value = namedexpr();
    s->body = block();
    if (is_kw("elif")) {
      s->orelse.push_back(if_stmt());
    } else if (accept_kw("else")) {
      s->orelse = block();
    }
    return s;
  }

  StmtPtr function_def() {
    auto def = std::make_unique<FunctionDef>();
    SourceLoc first = peek().loc;
    while (is_op("@")) {
      def->decorator_locs.push_back(peek().loc);
      ++p_;
      def->decorators.push_back(namedexpr());
      expect_newline();
    }
    def->loc = peek().loc;
    if (accept_kw("async")) def->is_async = true;
    expect_kw("def");
    if (peek().kind != Tok::Name || is_keyword(peek().text)) unexpected("a function name");
    def->name = peek().text;
    def->name_loc = peek().loc;
    ++p_;
    expect_op("(");
    while (!is_op(")")) {
      Param prm;
      prm.loc = peek().loc;
      if (accept_op("/")) {
        prm.problem = "positional-only parameter markers ('/')";
      } else if (accept_op("**")) {
        prm.problem = "'**kwargs' parameters";
      } else if (accept_op("*")) {
        prm.problem = (peek().kind == Tok::Name) ? "'*args' parameters" : "keyword-only parameter markers ('*')";
      }
      if (peek().kind == Tok::Name && !is_keyword(peek().text)) {
        prm.name = peek().text;
        if (prm.problem.empty()) prm.loc = peek().loc;
        ++p_;
        if (accept_op(":")) prm.annotation = test();
        if (is_op("=")) {
          ++p_;
          prm.default_value = test();
        }
      } else if (prm.problem.empty()) {
        unexpected("a parameter name");
      }
      def->params.push_back(std::move(prm));
      if (!accept_op(",")) break;
    }
    expect_op(")");
    if (accept_op("->")) def->returns = test();
    def->body = block();
    auto s = stmt(StmtKind::Def, def->decorator_locs.empty() ? def->loc : first);
    s->def = std::move(def);
    return s;
  }

  std::vector<Token> t_;
  ParseLimits lim_;
  std::size_t p_ = 0;
  int nesting_ = 0;
};

}  // namespace

Result<Module> parse_module(std::string_view source, const ParseLimits& limits) {
  auto toks = tokenize(source, limits.max_nesting);
  if (!toks) return toks.error();
  try {
    Parser p(std::move(*toks), limits);
    return p.module();
  } catch (const SyntaxError& e) {
    return e.d;
  }
}

}  // namespace tc::py
