// `# tensorcode: input NAME=DOMAIN` and `# tensorcode: compile KEY=VALUE`
// directive comments: how the IDE keeps input domains and compile options
// inside the .py file. They are ordinary comments to CPython.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>

#include "frontend/compile.h"
#include "frontend/lexer.h"

namespace tc {

namespace {

constexpr std::string_view kPrefix = "tensorcode:";

struct Line {
  std::size_t begin, end;  // [begin, end) without the line break
  std::size_t next;        // start of the following line
};

std::vector<Line> split_lines(std::string_view s) {
  std::vector<Line> out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t e = i;
    while (e < s.size() && s[e] != '\n' && s[e] != '\r') ++e;
    std::size_t n = e;
    if (n < s.size() && s[n] == '\r') ++n;
    if (n < s.size() && s[n] == '\n' && (n == e || s[n - 1] == '\r')) ++n;
    out.push_back({i, e, n});
    i = n;
  }
  return out;
}

// Position just after "# tensorcode:" when the line is such a directive comment.
std::optional<std::size_t> directive_body(std::string_view line) {
  std::size_t p = 0;
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  if (p >= line.size() || line[p] != '#') return std::nullopt;
  ++p;
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  if (line.substr(p, kPrefix.size()) != kPrefix) return std::nullopt;
  return p + kPrefix.size();
}

bool is_directive(std::string_view line, std::string_view keyword) {
  auto body = directive_body(line);
  if (!body) return false;
  std::size_t p = *body;
  while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
  const std::size_t n = keyword.size();
  return line.substr(p, n) == keyword && (p + n == line.size() || line[p + n] == ' ' || line[p + n] == '\t');
}

bool is_input_directive(std::string_view line) { return is_directive(line, "input"); }
bool is_compile_directive(std::string_view line) { return is_directive(line, "compile"); }

/// [line] whether the line can be a directive: the lexer found a comment
/// starting where the line's first non-blank byte is. A '#' line inside a
/// string (a docstring quoting a directive) is not a comment, so it is not
/// one. Where the lexer stops at a syntax error, every line is read as text
/// (the source does not compile anyway; the IDE still shows and rewrites its
/// directives while the user types). Every line, not only those past the
/// error: the comments the lexer met before it stopped are not all known
/// then, and writing the directives back must not change what a second
/// read finds (the directives fuzzer's property; an invalid UTF-8 byte in
/// one directive lost the directive above it once the two were rewritten
/// on lines of their own).
std::vector<std::uint8_t> comment_lines(std::string_view source, const std::vector<Line>& lines) {
  std::vector<SourceLoc> comments;
  auto tokens = py::tokenize(source, std::numeric_limits<int>::max(), &comments);
  const std::size_t known = tokens ? lines.size() : 0;
  std::vector<std::uint8_t> out(lines.size(), 0);
  for (std::size_t i = known; i < lines.size(); ++i) out[i] = 1;
  for (const SourceLoc& c : comments) {
    const auto i = static_cast<std::size_t>(c.line - 1);
    if (c.line < 1 || i >= known) continue;
    std::string_view l = source.substr(lines[i].begin, lines[i].end - lines[i].begin);
    std::size_t p = 0;
    while (p < l.size() && (l[p] == ' ' || l[p] == '\t')) ++p;
    if (p + 1 == static_cast<std::size_t>(c.column)) out[i] = 1;
  }
  return out;
}

/// `source` with every line `is_kind` accepts removed and `block` put where the
/// first of them was, else at the top (after a shebang or encoding line).
std::string replace_directive_lines(std::string_view source, bool (*is_kind)(std::string_view),
                                    const std::string& block) {
  std::vector<Line> lines = split_lines(source);
  const std::vector<std::uint8_t> comment = comment_lines(source, lines);
  std::optional<std::size_t> insert_at;  // byte offset in the output
  std::string out;
  std::size_t first_free = 0;  // line index after a shebang / encoding line
  for (std::size_t i = 0; i < lines.size() && i < 2; ++i) {
    std::string_view l = source.substr(lines[i].begin, lines[i].end - lines[i].begin);
    bool special = (i == 0 && l.substr(0, 2) == "#!") ||
                   (l.substr(0, 1) == "#" && l.find("coding") != std::string_view::npos && !directive_body(l));
    if (special && first_free == i) first_free = i + 1;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = source.substr(lines[i].begin, lines[i].end - lines[i].begin);
    if (comment[i] && is_kind(l)) {
      if (!insert_at) insert_at = out.size();
      continue;
    }
    out += source.substr(lines[i].begin, lines[i].next - lines[i].begin);
  }
  if (!insert_at) {
    std::size_t off = 0;
    for (std::size_t i = 0; i < first_free && i < lines.size(); ++i) off = lines[i].next;
    // `out` equals the source up to here (no directive was removed before it).
    if (off > 0 && !block.empty() && lines[first_free - 1].next == lines[first_free - 1].end) {
      const std::string eol = "\n";
      out.insert(off, eol);  // the shebang line had no line break
      off += eol.size();
    }
    insert_at = off;
  }
  out.insert(*insert_at, block);
  return out;
}

std::string line_end(std::string_view source) {
  std::vector<Line> lines = split_lines(source);
  if (!lines.empty() && lines[0].next > lines[0].end)
    return std::string(source.substr(lines[0].end, lines[0].next - lines[0].end));
  return "\n";
}

}  // namespace

Result<std::vector<std::pair<std::string, Domain>>> parse_input_directives(std::string_view source,
                                                                           const std::string& filename) {
  std::vector<std::pair<std::string, Domain>> out;
  const std::vector<Line> lines = split_lines(source);
  const std::vector<std::uint8_t> comment = comment_lines(source, lines);
  int line_no = 0;
  for (const Line& ln : lines) {
    ++line_no;
    std::string_view line = source.substr(ln.begin, ln.end - ln.begin);
    auto body = directive_body(line);
    if (!body || !comment[static_cast<std::size_t>(line_no - 1)]) continue;
    auto err = [&](std::string msg, std::size_t col) {
      Diagnostic d = make_error(std::move(msg), SourceLoc{line_no, static_cast<int>(col) + 1});
      d.file = filename;
      return d;
    };
    std::size_t p = *body;
    auto skip_ws = [&] {
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
    };
    auto word = [&] {
      std::size_t b = p;
      while (p < line.size() && line[p] != ' ' && line[p] != '\t') ++p;
      return line.substr(b, p - b);
    };
    skip_ws();
    std::size_t kw_col = p;
    std::string_view kw = word();
    if (kw == "compile") continue;  // compile options: parse_compile_directives
    if (kw != "input")
      return err("unknown tensorcode directive '" + std::string(kw) +
                     "': write '# tensorcode: input NAME=DOMAIN' or '# tensorcode: compile KEY=VALUE'",
                 kw_col);
    skip_ws();
    if (p >= line.size()) return err("the input directive names no input: write NAME=DOMAIN after 'input'", p);
    while (p < line.size()) {
      std::size_t col = p;
      std::string_view item = word();
      auto eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return err("input directive item '" + std::string(item) + "' must be NAME=DOMAIN, e.g. a=int32:-128:127", col);
      std::string name(item.substr(0, eq));
      auto d = parse_domain(item.substr(eq + 1));
      if (!d) return err("input '" + name + "': " + d.error().message, col + eq + 1);
      for (const auto& [n, _] : out)
        if (n == name) return err("input '" + name + "' is given twice in the directives", col);
      out.emplace_back(name, *d);
      skip_ws();
    }
  }
  return out;
}

std::string set_input_directives(std::string_view source, const std::vector<std::pair<std::string, Domain>>& inputs) {
  const std::string eol = line_end(source);
  std::string block;
  for (const auto& [name, domain] : inputs) block += "# tensorcode: input " + name + "=" + domain.to_string() + eol;
  return replace_directive_lines(source, is_input_directive, block);
}

Result<CompileDirectives> parse_compile_directives(std::string_view source, const std::string& filename,
                                                   const DirectiveCeiling& ceiling) {
  CompileDirectives out;
  const std::vector<Line> lines = split_lines(source);
  const std::vector<std::uint8_t> comment = comment_lines(source, lines);
  std::vector<std::pair<std::string, int>> seen;  // key, line
  int line_no = 0;
  for (const Line& ln : lines) {
    ++line_no;
    std::string_view line = source.substr(ln.begin, ln.end - ln.begin);
    if (!comment[static_cast<std::size_t>(line_no - 1)] || !is_compile_directive(line)) continue;
    auto err = [&](std::string msg, std::size_t col) {
      Diagnostic d = make_error(std::move(msg), SourceLoc{line_no, static_cast<int>(col) + 1});
      d.file = filename;
      return d;
    };
    std::size_t p = line.find("compile", *directive_body(line)) + 7;
    while (p < line.size()) {
      while (p < line.size() && (line[p] == ' ' || line[p] == '\t')) ++p;
      if (p >= line.size()) break;
      const std::size_t col = p;
      const std::size_t b = p;
      while (p < line.size() && line[p] != ' ' && line[p] != '\t') ++p;
      const std::string_view item = line.substr(b, p - b);
      const auto eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        return err("compile directive item '" + std::string(item) + "' must be KEY=VALUE, e.g. max-iterations=4096",
                   col);
      const std::string key(item.substr(0, eq));
      const std::string value(item.substr(eq + 1));
      if (key != "dtype" && key != "max-iterations" && key != "max-nodes")
        return err("unknown compile directive key '" + key + "': use dtype, max-iterations or max-nodes", col);
      // A key given twice is refused rather than the last one silently winning.
      for (const auto& [k, at] : seen)
        if (k == key)
          return err("compile directive key '" + key + "' is given twice (also at line " + std::to_string(at) +
                         "): keep one",
                     col);
      seen.emplace_back(key, line_no);
      if (key == "dtype") {
        if (value == "float64") out.dtype = Dtype::Float64;
        else if (value == "float32") out.dtype = Dtype::Float32;
        else return err("compile directive: dtype must be float64 or float32, got '" + value + "'", col + eq + 1);
      } else {
        const std::size_t most = key == "max-nodes" ? ceiling.max_nodes : ceiling.max_iterations;
        std::size_t n = 0;
        bool ok = !value.empty(), above = false;
        for (char c : value) {
          ok = ok && c >= '0' && c <= '9';
          if (!ok) break;
          const auto digit = static_cast<std::size_t>(c - '0');
          if (n > (std::numeric_limits<std::size_t>::max() - digit) / 10) above = true;
          else n = n * 10 + digit;
        }
        if (!ok || (n == 0 && !above))
          return err("compile directive: " + key + " must be a positive whole number, got '" + value + "'", col + eq + 1);
        if (above || n > most)
          return err("compile directive: " + key + "=" + value + " is above the most a source file may ask for (" +
                         std::to_string(most) + "); give a larger budget to the compile itself instead (" +
                         (key == "max-nodes" ? "--max-nodes, max_nodes=" : "--max-iterations, max_iterations=") + ")",
                     col + eq + 1);
        (key == "max-nodes" ? out.max_nodes : out.max_iterations) = n;
      }
    }
  }
  return out;
}

std::string set_compile_directives(std::string_view source, const CompileDirectives& d) {
  std::string items;
  if (d.dtype) items += std::string(" dtype=") + (*d.dtype == Dtype::Float32 ? "float32" : "float64");
  if (d.max_iterations) items += " max-iterations=" + std::to_string(*d.max_iterations);
  if (d.max_nodes) items += " max-nodes=" + std::to_string(*d.max_nodes);
  const std::string block = items.empty() ? std::string() : "# tensorcode: compile" + items + line_end(source);
  return replace_directive_lines(source, is_compile_directive, block);
}

void apply_compile_directives(const CompileDirectives& d, CompileOptions& options) {
  if (d.dtype) options.dtype = *d.dtype;
  if (d.max_iterations) options.max_iterations = *d.max_iterations;
  if (d.max_nodes) options.max_nodes = *d.max_nodes;
}

Result<CompileOptions> with_compile_directives(std::string_view source, CompileOptions options,
                                               const CompileDirectives& given, const DirectiveCeiling& ceiling) {
  // A budget the caller gives explicitly wins, so the file's is not bounded.
  DirectiveCeiling bound = ceiling;
  if (given.max_nodes) bound.max_nodes = std::numeric_limits<std::size_t>::max();
  if (given.max_iterations) bound.max_iterations = std::numeric_limits<std::size_t>::max();
  auto file = parse_compile_directives(source, options.filename, bound);
  if (!file) return file.error();
  apply_compile_directives(*file, options);
  apply_compile_directives(given, options);
  return options;
}

}  // namespace tc
