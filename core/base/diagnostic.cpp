#include "base/diagnostic.h"

namespace tc {

namespace {
const char* severity_word(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}
/// Length of the valid UTF-8 sequence starting at s[i], or 0 when invalid.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  if (n == 2 && b < 0xc2) return 0;  // overlong
  if (n == 3) {
    const auto c = static_cast<unsigned char>(s[i + 1]);
    if ((b == 0xe0 && c < 0xa0) || (b == 0xed && c >= 0xa0)) return 0;  // overlong, surrogate
  }
  if (n == 4) {
    const auto c = static_cast<unsigned char>(s[i + 1]);
    if ((b == 0xf0 && c < 0x90) || b > 0xf4 || (b == 0xf4 && c >= 0x90)) return 0;
  }
  return n;
}

void append_hex(std::string& out, unsigned char b) {
  static const char* digits = "0123456789abcdef";
  out += "\\x";
  out += digits[b >> 4];
  out += digits[b & 15];
}

/// Escapes control characters and invalid UTF-8 (and, when `quotes`, the
/// quote and backslash) of `text`, stopping after `limit` input bytes.
std::string escape(std::string_view text, std::size_t limit, bool quotes) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && i < limit) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      append_hex(out, b);
      ++i;
    } else if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
    } else if (b == '\n') {
      out += "\\n";
      ++i;
    } else if (b == '\r') {
      out += "\\r";
      ++i;
    } else if (b == '\t') {
      out += "\\t";
      ++i;
    } else if (b < 0x20 || b == 0x7f) {
      append_hex(out, b);
      ++i;
    } else if (quotes && (b == '\\' || b == '\'')) {
      out += '\\';
      out += static_cast<char>(b);
      ++i;
    } else {
      out += static_cast<char>(b);
      ++i;
    }
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace

std::string quote_user(std::string_view text) { return escape(text, kMaxQuotedBytes, true); }

std::string Diagnostic::format() const {
  std::string out;
  if (loc && loc->valid()) {
    out += file.empty() ? std::string("<input>") : escape(file, kMaxMessageBytes, false);
    out += ':' + std::to_string(loc->line) + ':' + std::to_string(loc->column) + ": ";
  } else if (!file.empty()) {
    out += escape(file, kMaxMessageBytes, false) + ": ";
  }
  out += severity_word(severity);
  out += ": ";
  // The last line of defence for "one line per error": whatever a message
  // quotes, it prints as one line of bounded length.
  out += escape(message, kMaxMessageBytes, false);
  if (message.size() > kMaxMessageBytes) out += " (" + std::to_string(message.size()) + " bytes)";
  return out;
}

Diagnostic make_error(std::string message, std::optional<SourceLoc> loc, std::optional<NodeId> node) {
  return Diagnostic{Severity::Error, std::move(message), loc, node, {}};
}

Diagnostic make_warning(std::string message, std::optional<SourceLoc> loc, std::optional<NodeId> node) {
  return Diagnostic{Severity::Warning, std::move(message), loc, node, {}};
}

Diagnostic with_code(Diagnostic d, DiagCode code, std::optional<NodeId> related) {
  d.code = code;
  if (related) d.related = related;
  return d;
}

const char* to_string(DiagCode code) {
  switch (code) {
    case DiagCode::Generic: return "generic";
    case DiagCode::HybridNeedsUnchosen: return "hybrid-needs-unchosen";
    case DiagCode::UnknownInput: return "unknown-input";
    case DiagCode::NodeBudget: return "node-budget";
    case DiagCode::IterationBudget: return "iteration-budget";
    case DiagCode::RemoteFailure: return "remote-failure";
    case DiagCode::Cancelled: return "cancelled";
  }
  return "generic";
}

}  // namespace tc
