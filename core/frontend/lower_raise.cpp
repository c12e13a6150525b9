// raise and assert: a checked failure of the case, as a division by zero
// is one. The path that raises leaves the function like a return whose
// value is a raise node; the selects that join the paths evaluate only the
// chosen side, so the node fails exactly the cases that reach the statement.
#include "frontend/lowerer.h"

namespace tc::py::lowering {

namespace {

// The text of one piece of a string literal as the source spells it
// ('...', "...", r'...', '''...'''), with the escapes a message needs.
// `at` moves past the piece. f-strings and bytes are refused: their value
// is not a literal message.
std::string literal_piece(const std::string& src, std::size_t& at, SourceLoc loc) {
  bool raw = false;
  while (at < src.size() && src[at] != '\'' && src[at] != '"') {
    const char p = src[at];
    if (p == 'f' || p == 'F')
      fail("the message of a raise or assert must be a string literal: an f-string is computed at run time", loc);
    if (p == 'b' || p == 'B') fail("the message of a raise or assert must be a str literal, not bytes", loc);
    if (p == 'r' || p == 'R') raw = true;
    ++at;
  }
  const char q = src[at];
  const bool triple = src.compare(at, 3, std::string(3, q)) == 0;
  at += triple ? 3 : 1;
  std::string out;
  while (at < src.size()) {
    const char c = src[at];
    if (c == q && (!triple || src.compare(at, 3, std::string(3, q)) == 0)) {
      at += triple ? 3 : 1;
      return out;
    }
    if (c == '\\' && !raw && at + 1 < src.size()) {
      const char e = src[at + 1];
      at += 2;
      switch (e) {
        case '\n': break;  // a line continuation
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': case '\'': case '"': out += e; break;
        default:
          fail(std::string("the escape '\\") + e + "' is not supported in a raise or assert message: write the "
                   "character itself",
               loc);
      }
      continue;
    }
    out += c;
    ++at;
  }
  return out;  // the lexer checked that every literal ends
}

// The value of a string literal expression (adjacent literals concatenated).
std::string literal_text(const Expr& e) {
  std::string out;
  std::size_t at = 0;
  while (at < e.text.size()) out += literal_piece(e.text, at, e.loc);
  return out;
}

std::string with_message(std::string cls, const Expr* message) {
  if (!message) return cls;
  const std::string m = literal_text(*message);
  return m.empty() ? cls : cls + ": " + m;
}

}  // namespace

std::string Lowerer::raised_exception(const Stmt& s) {
  if (s.kind == StmtKind::Assert) return with_message("AssertionError", s.cause.get());
  const Expr& e = *s.value;  // the subset checked: a builtin class, called with at most one literal
  if (e.kind != ExprKind::Call) return e.text;
  return with_message(e.kids[0]->text, e.kids.size() == 2 ? e.kids[1].get() : nullptr);
}

Flow Lowerer::raising(const std::string& exception, SourceLoc loc, const Env& env) {
  b_.set_location(loc);
  Val r;
  r.node = b_.raise(exception);
  check_nodes(loc);
  r.ty = 0;  // no value: a select of it and a number has the number's types
  make_empty(r.lo, r.hi);
  r.loc = loc;
  r.may_fail = true;
  r.raises = true;
  r.has_raise = true;
  Flow g;
  g.env = env;
  g.active = cbool(false, loc);
  g.may_return = true;
  g.rv = r;
  return g;
}

}  // namespace tc::py::lowering
