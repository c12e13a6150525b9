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
}  // namespace

std::string Diagnostic::format() const {
  std::string out;
  if (loc && loc->valid()) {
    out += file.empty() ? std::string("<input>") : file;
    out += ':' + std::to_string(loc->line) + ':' + std::to_string(loc->column) + ": ";
  } else if (!file.empty()) {
    out += file + ": ";
  }
  out += severity_word(severity);
  out += ": ";
  out += message;
  return out;
}

Diagnostic make_error(std::string message, std::optional<SourceLoc> loc, std::optional<NodeId> node) {
  return Diagnostic{Severity::Error, std::move(message), loc, node, {}};
}

Diagnostic make_warning(std::string message, std::optional<SourceLoc> loc, std::optional<NodeId> node) {
  return Diagnostic{Severity::Warning, std::move(message), loc, node, {}};
}

}  // namespace tc
