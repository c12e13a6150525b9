#include "frontend/lexer.h"

#include <array>
#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <locale.h>
#include <optional>

#include "frontend/unicode_names.h"

namespace tc::py {

namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",   "True",    "and",      "as",   "assert", "async", "await",  "break",
    "class", "continue", "def",   "del",      "elif", "else",   "except", "finally", "for",
    "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",  "while",  "with",  "yield"};

// Longest first so that maximal munch works by scanning in order.
constexpr std::array<std::string_view, 47> kOperators = {
    "**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=",
    "*=",  "/=",  "%=",  "&=",  "|=",  "^=", "@=", ":=", "+",  "-",  "*",  "/",  "%",  "@",  "&",  "|",
    "^",   "~",   "<",   ">",   "(",   ")",  "[",  "]",  "{",  "}",  ",",  ":",  ".",  ";",  "="};

bool is_ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool is_ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

/// Length of the valid UTF-8 sequence at s[i], or 0 when it is invalid
/// (overlong forms, surrogates and code points above U+10FFFF included).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  const auto c = static_cast<unsigned char>(s[i + 1 < s.size() ? i + 1 : i]);
  if (n == 2 && b < 0xc2) return 0;
  if (n == 3 && ((b == 0xe0 && c < 0xa0) || (b == 0xed && c >= 0xa0))) return 0;
  if (n == 4 && ((b == 0xf0 && c < 0x90) || b > 0xf4 || (b == 0xf4 && c >= 0x90))) return 0;
  return n;
}

char32_t decode_utf8(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = static_cast<unsigned char>(s[i]);
  char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1f) : n == 3 ? (b & 0x0f) : (b & 0x07);
  for (std::size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  return cp;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string hex_byte(unsigned char b) {
  static const char* digits = "0123456789abcdef";
  return {digits[b >> 4], digits[b & 15]};
}

/// "U+200B", as CPython writes code points in its messages.
std::string code_point_text(char32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// strtod in the "C" locale whatever the process locale (the IDE's Qt sets it
// from the environment, and a German locale would read "1.5" as 1).
double c_strtod(const std::string& s, char** end) {
  static locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(nullptr));
  return strtod_l(s.c_str(), end, c_locale);
}

class Lexer {
 public:
  Lexer(std::string_view src, int max_indent, std::vector<SourceLoc>* comments)
      : s_(src), max_indent_(max_indent), comments_(comments) {}

  Result<std::vector<Token>> run() {
    indents_.push_back(0);
    alt_indents_.push_back(0);
    if (auto bad = first_invalid_utf8(s_)) {
      i_ = *bad;
      for (std::size_t k = 0; k < *bad; ++k)
        if (s_[k] == '\n') {
          ++line_;
          line_start_ = k + 1;
        }
      return err("source is not valid utf-8: byte 0x" + hex_byte(static_cast<unsigned char>(s_[*bad])) +
                 " cannot appear here");
    }
    bool at_line_start = true;
    while (true) {
      if (at_line_start && depth_ == 0) {
        // Measure indentation; blank and comment-only lines do not count.
        // `alt` counts a tab as one column: CPython's check that tabs and
        // spaces are used consistently compares indentation both ways.
        int width = 0, alt = 0;
        std::size_t p = i_;
        while (p < s_.size() && (s_[p] == ' ' || s_[p] == '\t' || s_[p] == '\f')) {
          width = s_[p] == '\t' ? (width / 8 + 1) * 8 : s_[p] == '\f' ? 0 : width + 1;
          alt = s_[p] == '\f' ? 0 : alt + 1;
          ++p;
        }
        if (p >= s_.size()) {
          advance_to(p);
          break;
        }
        if (s_[p] == '#' || s_[p] == '\n' || s_[p] == '\r' || (s_[p] == '\\' && p + 1 < s_.size() && (s_[p + 1] == '\n' || s_[p + 1] == '\r'))) {
          advance_to(p);
          if (s_[i_] == '#') skip_comment();
          if (i_ < s_.size() && s_[i_] == '\\') { advance(); }
          if (i_ < s_.size()) newline_char();
          continue;
        }
        advance_to(p);
        at_line_start = false;
        constexpr const char* kTabError = "inconsistent use of tabs and spaces in indentation";
        if (width > indents_.back()) {
          if (alt <= alt_indents_.back()) return err(kTabError);
          if (static_cast<int>(indents_.size()) > max_indent_)
            return err("indentation is nested too deeply (more than " + std::to_string(max_indent_) + " levels)");
          indents_.push_back(width);
          alt_indents_.push_back(alt);
          push(Tok::Indent, "");
        } else {
          while (width < indents_.back()) {
            indents_.pop_back();
            alt_indents_.pop_back();
            push(Tok::Dedent, "");
          }
          if (width != indents_.back())
            return err("unindent does not match any outer indentation level");
          if (alt != alt_indents_.back()) return err(kTabError);
        }
      }
      if (i_ >= s_.size()) break;
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == ' ' || c == '\t' || c == '\f') { advance(); continue; }
      if (c == '#') { skip_comment(); continue; }
      if (c == '\\') {
        std::size_t p = i_ + 1;
        if (p < s_.size() && (s_[p] == '\n' || s_[p] == '\r')) {
          advance();
          newline_char();
          continue;
        }
        return err("unexpected character after line continuation character");
      }
      if (c == '\n' || c == '\r') {
        if (depth_ == 0) push(Tok::Newline, "");
        newline_char();
        if (depth_ == 0) at_line_start = true;
        continue;
      }
      if (is_string_start()) {
        if (auto st = string_literal(); !st) return st.error();
        continue;
      }
      if (std::isdigit(c) || (c == '.' && i_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_ + 1])))) {
        if (auto st = number(); !st) return st.error();
        continue;
      }
      if (is_ident_start(c)) {
        std::size_t b = i_;
        bool ascii = true;
        while (i_ < s_.size() && is_ident_char(static_cast<unsigned char>(s_[i_]))) {
          ascii = ascii && static_cast<unsigned char>(s_[i_]) < 0x80;
          advance();
        }
        std::string name(s_.substr(b, i_ - b));
        if (!ascii) {
          // As CPython: every character must be XID_Start (first) or
          // XID_Continue, and the name is NFKC-normalised, so `ℌ` is `H`.
          auto normal = non_ascii_identifier(b, name);
          if (!normal) return normal.error();
          name = std::move(*normal);
        }
        tokens_.push_back({Tok::Name, std::move(name), SourceLoc{line_, col_of(b)}});
        continue;
      }
      bool matched = false;
      for (std::string_view op : kOperators) {
        if (s_.substr(i_, op.size()) == op) {
          push(Tok::Op, std::string(op));
          if (op == "(" || op == "[" || op == "{") {
            brackets_.push_back(tokens_.back().loc);
            ++depth_;
          } else if (op == ")" || op == "]" || op == "}") {
            if (depth_ == 0) return err("unmatched '" + std::string(op) + "'");
            brackets_.pop_back();
            --depth_;
          }
          for (std::size_t k = 0; k < op.size(); ++k) advance();
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (c == '!') return err("invalid syntax: '!' (use 'not' or '!=')");
      if (c == '$' || c == '?' || c == '`') return err(std::string("invalid character '") + char(c) + "'");
      return err("invalid character (code " + std::to_string(c) + ")");
    }
    if (depth_ > 0) {
      Diagnostic d = make_error("'" + open_bracket_text() + "' was never closed", brackets_.back());
      return d;
    }
    if (!tokens_.empty() && tokens_.back().kind != Tok::Newline && tokens_.back().kind != Tok::Dedent &&
        tokens_.back().kind != Tok::Indent)
      push(Tok::Newline, "");
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::Dedent, "");
    }
    push(Tok::End, "");
    return std::move(tokens_);
  }

 private:
  std::string open_bracket_text() const {
    // Find the bracket token at that location.
    for (auto it = tokens_.rbegin(); it != tokens_.rend(); ++it)
      if (it->loc == brackets_.back()) return it->text;
    return "(";
  }
  int col_of(std::size_t pos) const { return static_cast<int>(pos - line_start_) + 1; }
  void advance() { ++i_; }
  void advance_to(std::size_t p) { i_ = p; }
  void newline_char() {
    if (s_[i_] == '\r' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') ++i_;
    ++i_;
    ++line_;
    line_start_ = i_;
  }
  void skip_comment() {
    if (comments_) comments_->push_back(SourceLoc{line_, col_of(i_)});
    while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') ++i_;
  }
  void push(Tok k, std::string text) { tokens_.push_back({k, std::move(text), SourceLoc{line_, col_of(i_)}}); }
  Diagnostic err(std::string msg) const { return make_error(std::move(msg), SourceLoc{line_, col_of(i_)}); }

  bool is_string_start() const {
    std::size_t p = i_;
    int n = 0;
    while (p < s_.size() && n < 2 && std::string_view("rRbBuUfF").find(s_[p]) != std::string_view::npos) { ++p; ++n; }
    return p < s_.size() && (s_[p] == '\'' || s_[p] == '"');
  }

  Status string_literal() {
    std::size_t b = i_;
    SourceLoc loc{line_, col_of(b)};
    bool raw = false;
    while (s_[i_] != '\'' && s_[i_] != '"') {
      if (s_[i_] == 'r' || s_[i_] == 'R') raw = true;
      ++i_;
    }
    char q = s_[i_];
    bool triple = s_.substr(i_, 3) == std::string(3, q);
    i_ += triple ? 3 : 1;
    while (true) {
      if (i_ >= s_.size()) return make_error(triple ? "unterminated triple-quoted string literal" : "unterminated string literal", loc);
      char c = s_[i_];
      if (c == '\\' && i_ + 1 < s_.size()) {
        if (s_[i_ + 1] == '\n' || s_[i_ + 1] == '\r') {
          ++i_;
          newline_char();
        } else {
          i_ += 2;
        }
        (void)raw;
        continue;
      }
      if (c == '\n' || c == '\r') {
        if (!triple) return make_error("unterminated string literal", loc);
        newline_char();
        continue;
      }
      if (c == q && (!triple || s_.substr(i_, 3) == std::string(3, q))) {
        i_ += triple ? 3 : 1;
        break;
      }
      ++i_;
    }
    Token t{Tok::String, std::string(s_.substr(b, i_ - b)), loc};
    tokens_.push_back(std::move(t));
    return ok_status();
  }

  // Digits with single underscores between them; returns false on a misplaced underscore.
  bool digits(std::string& out, int base) {
    auto ok_digit = [&](char ch) {
      unsigned char u = static_cast<unsigned char>(ch);
      if (base == 16) return std::isxdigit(u) != 0;
      if (base == 8) return ch >= '0' && ch <= '7';
      if (base == 2) return ch == '0' || ch == '1';
      return std::isdigit(u) != 0;
    };
    bool any = false;
    while (i_ < s_.size()) {
      char ch = s_[i_];
      if (ok_digit(ch)) {
        out += ch;
        ++i_;
        any = true;
      } else if (ch == '_' && any && i_ + 1 < s_.size() && ok_digit(s_[i_ + 1])) {
        ++i_;
      } else if (ch == '_') {
        return false;
      } else {
        break;
      }
    }
    return true;
  }

  Status number() {
    std::size_t b = i_;
    SourceLoc loc{line_, col_of(b)};
    auto bad = [&](const std::string& why) { return make_error(why, loc); };
    std::string clean;
    bool is_float = false;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && std::string_view("xXoObB").find(s_[i_ + 1]) != std::string_view::npos) {
      char kind = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[i_ + 1])));
      int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
      i_ += 2;
      if (i_ < s_.size() && s_[i_] == '_') ++i_;
      if (!digits(clean, base) || clean.empty()) return bad("invalid " + std::string(base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary") + " literal");
      if (i_ < s_.size() && is_ident_char(static_cast<unsigned char>(s_[i_])))
        return bad("invalid digit '" + std::string(1, s_[i_]) + "' in number literal");
      Token t{Tok::Number, std::string(s_.substr(b, i_ - b)), loc};
      double v = 0;
      for (char ch : clean) {
        int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0' : std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10;
        v = v * base + d;
        if (v > 9007199254740992.0) t.too_large = true;
      }
      t.number = t.too_large ? 0.0 : v;
      tokens_.push_back(std::move(t));
      return ok_status();
    }
    if (!digits(clean, 10)) return bad("invalid decimal literal");
    std::string int_part = clean;
    if (i_ < s_.size() && s_[i_] == '.') {
      is_float = true;
      clean += '.';
      ++i_;
      if (i_ < s_.size() && s_[i_] == '_') return bad("invalid decimal literal");
      if (!digits(clean, 10)) return bad("invalid decimal literal");
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      std::size_t save = i_;
      std::string exp = "e";
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) exp += s_[i_++];
      std::string ed;
      if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])) && digits(ed, 10) && !ed.empty()) {
        clean += exp + ed;
        is_float = true;
      } else {
        i_ = save;
        return bad("invalid decimal literal");
      }
    }
    if (i_ < s_.size() && (s_[i_] == 'j' || s_[i_] == 'J'))
      return bad("complex number literals are not supported; use real numbers");
    if (i_ < s_.size() && is_ident_char(static_cast<unsigned char>(s_[i_]))) return bad("invalid decimal literal");
    Token t{Tok::Number, std::string(s_.substr(b, i_ - b)), loc};
    t.is_float = is_float;
    if (is_float) {
      char* end = nullptr;
      t.number = c_strtod(clean, &end);
      if (!std::isfinite(t.number)) return bad("float literal " + t.text + " is too large (it would be infinity)");
    } else {
      if (int_part.size() > 1 && int_part[0] == '0' && int_part.find_first_not_of('0') != std::string::npos)
        return bad("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
      double v = 0;
      for (char ch : int_part) {
        v = v * 10 + (ch - '0');
        if (v > 9007199254740992.0) {
          t.too_large = true;
          break;
        }
      }
      t.number = t.too_large ? 0.0 : v;
    }
    tokens_.push_back(std::move(t));
    return ok_status();
  }

  std::string_view s_;
  int max_indent_;
  std::vector<SourceLoc>* comments_;  ///< where each comment's '#' is, when asked
  std::size_t i_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
  int depth_ = 0;
  std::vector<SourceLoc> brackets_;
  std::vector<int> indents_;
  std::vector<int> alt_indents_;
  std::vector<Token> tokens_;

  /// Checks the characters of a non-ASCII name (bytes [b, b + name.size()))
  /// and returns its NFKC form, or CPython's error at the first bad one.
  Result<std::string> non_ascii_identifier(std::size_t b, const std::string& name) const {
    std::u32string wide;
    std::size_t k = 0;
    while (k < name.size()) {
      const std::size_t n = utf8_length(name, k);  // the source was validated
      const char32_t cp = decode_utf8(name, k, n);
      const bool ok = k == 0 ? (cp == '_' || is_xid_start(cp)) : is_xid_continue(cp);
      if (!ok) {
        const std::string code = code_point_text(cp);
        std::string message = is_printable(cp) ? "invalid character '" + name.substr(k, n) + "' (" + code + ")"
                                               : "invalid non-printable character " + code;
        return make_error(std::move(message), SourceLoc{line_, col_of(b + k)});
      }
      wide += cp;
      k += n;
    }
    std::string out;
    for (char32_t cp : nfkc(wide)) append_utf8(out, cp);
    return out;
  }
};

}  // namespace

bool is_keyword(std::string_view word) {
  for (std::string_view k : kKeywords)
    if (k == word) return true;
  return false;
}

Result<std::vector<Token>> tokenize(std::string_view source, int max_indent, std::vector<SourceLoc>* comments) {
  // A UTF-8 byte order mark is ignored, as CPython does.
  if (source.substr(0, 3) == "\xEF\xBB\xBF") source.remove_prefix(3);
  return Lexer(source, max_indent, comments).run();
}

}  // namespace tc::py
