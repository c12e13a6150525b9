// `# tensorcode: input NAME=DOMAIN` and `# tensorcode: compile KEY=VALUE`
// directive comments: how the IDE keeps input domains and compile options
// inside the .py file. They are ordinary comments to CPython.
#include <cctype>
#include <optional>

#include "frontend/compile.h"

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

/// `source` with every line `is_kind` accepts removed and `block` put where the
/// first of them was, else at the top (after a shebang or encoding line).
std::string replace_directive_lines(std::string_view source, bool (*is_kind)(std::string_view),
                                    const std::string& block) {
  std::vector<Line> lines = split_lines(source);
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
    if (is_kind(l)) {
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
  int line_no = 0;
  for (const Line& ln : split_lines(source)) {
    ++line_no;
    std::string_view line = source.substr(ln.begin, ln.end - ln.begin);
    auto body = directive_body(line);
    if (!body) continue;
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

Result<CompileDirectives> parse_compile_directives(std::string_view source, const std::string& filename) {
  CompileDirectives out;
  int line_no = 0;
  for (const Line& ln : split_lines(source)) {
    ++line_no;
    std::string_view line = source.substr(ln.begin, ln.end - ln.begin);
    if (!is_compile_directive(line)) continue;
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
      if (key == "dtype") {
        if (value == "float64") out.dtype = Dtype::Float64;
        else if (value == "float32") out.dtype = Dtype::Float32;
        else return err("compile directive: dtype must be float64 or float32, got '" + value + "'", col + eq + 1);
      } else if (key == "max-iterations" || key == "max-nodes") {
        std::size_t n = 0;
        bool ok = !value.empty() && value.size() <= 12;
        for (char c : value) {
          ok = ok && c >= '0' && c <= '9';
          if (ok) n = n * 10 + static_cast<std::size_t>(c - '0');
        }
        if (!ok || n == 0)
          return err("compile directive: " + key + " must be a positive whole number, got '" + value + "'", col + eq + 1);
        (key == "max-nodes" ? out.max_nodes : out.max_iterations) = n;
      } else {
        return err("unknown compile directive key '" + key + "': use dtype, max-iterations or max-nodes", col);
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
                                               const CompileDirectives& given) {
  auto file = parse_compile_directives(source, options.filename);
  if (!file) return file.error();
  apply_compile_directives(*file, options);
  apply_compile_directives(given, options);
  return options;
}

}  // namespace tc
