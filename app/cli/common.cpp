#include "common.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include "base/atomic_file.h"
#include "ir/artifact.h"
#include "options.h"

namespace tc::cli {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

void add_program_options(CLI::App& sub, ProgramArgs& args, bool with_positional) {
  if (with_positional)
    sub.add_option("PROGRAM", args.path, "artifact (.json) or Python source (.py)")->required();
  auto* g = sub.add_option_group("compile flags", "used when PROGRAM is Python source");
  g->add_option("--input", args.inputs, "NAME=DOMAIN for a function parameter, e.g. a=int32:-128:127 (repeatable)");
  g->add_option("--function", args.function, "function to compile when the file defines several");
  g->add_option("--dtype", args.dtype, "float64 (default) or float32")->check(CLI::IsMember({"float64", "float32"}));
  g->add_option("--semantics", args.semantics, "exact, relaxed or hybrid (replaces an artifact's root semantics)")
      ->check(CLI::IsMember({"exact", "relaxed", "hybrid"}));
  g->add_option("--surrogate", args.surrogate, "surrogate gradient policy: sigmoid")->check(CLI::IsMember({"sigmoid"}));
  g->add_option("--temperature", args.temperature, "relaxation temperature, finite and > 0")
      ->check(finite_above(0, true));
  g->add_option("--max-iterations", args.max_iterations,
                "budget of expanded loop iterations (default: the file's compile directive, else 1024)")
      ->check(count_range(1))
      ->type_name("N");
  g->add_option("--max-nodes", args.max_nodes, "budget of circuit nodes (default: the file's compile directive, else 100000)")
      ->check(count_range(1))
      ->type_name("N");
}

void add_threads_option(CLI::App& sub, unsigned& threads) {
  sub.add_option("--threads", threads, "worker threads for the per-case work (default: every core)")
      ->check(CLI::Range(1u, 4096u));
}

Result<CompileOptions> compile_options_from(const ProgramArgs& args) {
  CompileOptions o;
  o.filename = args.path;
  o.function = args.function;
  for (const std::string& item : args.inputs) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error("--input '" + item + "' must be NAME=DOMAIN, e.g. a=int32:-128:127");
    auto d = parse_domain(item.substr(eq + 1));
    if (!d) return make_error("--input " + item.substr(0, eq) + ": " + d.error().message);
    for (const auto& [name, _] : o.inputs)
      if (name == item.substr(0, eq)) return make_error("--input " + name + " is given twice");
    o.inputs.emplace_back(item.substr(0, eq), *d);
  }
  if (!args.dtype.empty()) o.dtype = *dtype_from(args.dtype);
  if (!args.semantics.empty()) o.semantics = *semantics_from(args.semantics);
  if (!args.surrogate.empty()) o.surrogate = *surrogate_from(args.surrogate);
  if (args.temperature) {
    if (!std::isfinite(*args.temperature) || *args.temperature <= 0)
      return make_error("--temperature must be finite and greater than 0");
    o.temperature = *args.temperature;
  }
  if (args.max_iterations) o.max_iterations = *args.max_iterations;
  if (args.max_nodes) o.max_nodes = *args.max_nodes;
  return o;
}

Result<CompileOptions> compile_options_for(const ProgramArgs& args, std::string_view source) {
  auto o = compile_options_from(args);
  if (!o) return o;
  // The flags the user typed, which win over the file's directive.
  CompileDirectives given;
  if (!args.dtype.empty()) given.dtype = o->dtype;
  if (args.max_iterations) given.max_iterations = *args.max_iterations;
  if (args.max_nodes) given.max_nodes = *args.max_nodes;
  return with_compile_directives(source, std::move(*o), given);
}

Result<LoadedProgram> load_program(const ProgramArgs& args) {
  // An artifact over the loader's limit is refused by its size, unread.
  // A stream (/dev/stdin, a pipe) is read up to the limit and no further.
  auto text = read_file(args.path, ends_with(args.path, ".py") ? kMaxSourceBytes : kMaxJsonTextBytes);
  if (!text) return text.error();
  LoadedProgram out;
  if (ends_with(args.path, ".py")) {
    auto opts = compile_options_for(args, *text);
    if (!opts) return opts.error();
    ModuleCompile compiled = compile_module(*text, *opts);
    if (!compiled.output) {
      Diagnostic d = compiled.output.error();
      if (d.file.empty()) d.file = args.path;
      return d;
    }
    out.program = std::move(compiled.output->program);
    out.warnings = std::move(compiled.output->warnings);
    out.source = std::move(*text);
    out.compile_options = std::move(*opts);
    out.compile_options.function = compiled.function;  // the reference picks the same one, without a second parse
    return out;
  }
  if (!args.inputs.empty() || !args.function.empty() || !args.dtype.empty())
    return make_error("--input, --function and --dtype apply to Python source, and '" + args.path +
                      "' is an artifact");
  auto program = load_artifact(*text);
  if (!program) {
    Diagnostic d = program.error();
    d.loc.reset();  // artifact errors name the node; the location is the Python source's, not this file's
    d.message = args.path + ": " + d.message;
    return d;
  }
  out.program = std::move(*program);
  if (!args.semantics.empty()) out.program.semantics = *semantics_from(args.semantics);
  if (!args.surrogate.empty()) out.program.surrogate = *surrogate_from(args.surrogate);
  if (args.temperature) {
    if (!std::isfinite(*args.temperature) || *args.temperature <= 0)
      return make_error("--temperature must be finite and greater than 0");
    out.program.temperature = *args.temperature;
  }
  return out;
}

Result<std::map<std::string, double, std::less<>>> parse_assignments(const std::vector<std::string>& items,
                                                                    const std::string& flag) {
  std::map<std::string, double, std::less<>> out;
  for (const std::string& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error(flag + " '" + item + "' must be NAME=VALUE");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    double v;
    if (value == "true" || value == "True") {
      v = 1;
    } else if (value == "false" || value == "False") {
      v = 0;
    } else {
      char* end = nullptr;
      v = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size())
        return make_error(flag + " " + name + ": '" + value + "' is not a number");
      if (!std::isfinite(v)) return make_error(flag + " " + name + ": '" + value + "' is not a finite number");
    }
    if (!out.emplace(name, v).second) return make_error(flag + " " + name + " is given twice");
  }
  return out;
}

Result<Env> env_from_assignments(const std::vector<std::string>& sets, const std::vector<std::string>& params,
                                 const std::vector<std::string>& states) {
  Env env;
  for (auto [items, flag, slot] : {std::tuple{&sets, "--set", &env.inputs}, std::tuple{&params, "--param", &env.params},
                                   std::tuple{&states, "--state", &env.state}}) {
    auto parsed = parse_assignments(*items, flag);
    if (!parsed) return parsed.error();
    *slot = std::move(*parsed);
  }
  return env;
}

void report(const Diagnostic& d, const std::string& file) {
  Diagnostic copy = d;
  if (copy.file.empty()) copy.file = file;
  if (!copy.loc || !copy.loc->valid()) copy.file.clear();
  std::fprintf(stderr, "%s\n", copy.format().c_str());
}

void report_line(const std::string& file, std::size_t line, const std::string& message) {
  Diagnostic d = make_error(message);
  d.file = file + ":" + std::to_string(line);
  std::fprintf(stderr, "%s\n", d.format().c_str());
}

LineRead read_line_bounded(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  for (int c = buf->sbumpc(); c != std::char_traits<char>::eof(); c = buf->sbumpc()) {
    any = true;
    if (c == '\n') return LineRead::Line;
    if (line.size() >= max_bytes) return LineRead::TooLong;
    line.push_back(static_cast<char>(c));
  }
  return any ? LineRead::Line : LineRead::End;
}

void report_warnings(const Diagnostics& ds, const std::string& file) {
  for (const Diagnostic& d : ds) report(d, file);
}

nlohmann::ordered_json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 9007199254740992.0)
    return static_cast<std::int64_t>(v);
  return v;
}

void print_json(const nlohmann::ordered_json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
}

int write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    errno = 0;
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      const int err = errno;
      report(make_error(std::string("cannot write to standard output") + (err ? ": " : "") +
                        (err ? std::strerror(err) : "")));
      return kRejected;
    }
    return kOk;
  }
  if (Status s = write_file_atomic(path, text); !s) {
    report(s.error());
    return kRejected;
  }
  return kOk;
}

}  // namespace tc::cli
