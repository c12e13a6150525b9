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
#include "ir/policy.h"
#include "options/binding_options.h"
#include "options.h"

namespace tc::cli {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

namespace {

/// The CLI's flag for an option of core's table, with its help, choices and range.
template <class T>
CLI::Option* add_table_flag(CLI::App& g, options::OptionId id, T& value) {
  const options::OptionSpec& spec = options::option_spec(id);
  return checked_by_table(g.add_option(options::spelled(spec, options::KeySpelling::Cli), value, std::string(spec.help)), id);
}

}  // namespace

CLI::Option* add_table_option(CLI::App& sub, options::OptionId id, std::string& value) {
  return add_table_flag(sub, id, value);
}

CLI::Option* checked_by_table(CLI::Option* o, options::OptionId id) {
  const options::OptionSpec& spec = options::option_spec(id);
  switch (spec.kind) {
    case options::OptionKind::Choice: return o->check(CLI::IsMember(options::choice_words(spec)));
    case options::OptionKind::Positive: return o->check(finite_above(0, true));
    case options::OptionKind::Count: return o->check(count_range(spec.lo, spec.hi))->type_name("N");
    default: return o;
  }
}

void add_program_options(CLI::App& sub, ProgramArgs& args, bool with_positional) {
  using options::OptionId;
  if (with_positional)
    sub.add_option("PROGRAM", args.path, "artifact (.json) or Python source (.py)")->required();
  auto* g = sub.add_option_group("compile flags", "used when PROGRAM is Python source");
  g->add_option("--input", args.inputs, std::string(options::option_spec(OptionId::Inputs).help));
  add_table_flag(*g, OptionId::Function, args.function);
  add_table_flag(*g, OptionId::Dtype, args.dtype);
  add_table_flag(*g, OptionId::Semantics, args.semantics);
  add_table_flag(*g, OptionId::Surrogate, args.surrogate);
  add_table_flag(*g, OptionId::Temperature, args.temperature);
  add_table_flag(*g, OptionId::MaxIterations, args.max_iterations);
  add_table_flag(*g, OptionId::MaxNodes, args.max_nodes);
}

void add_threads_option(CLI::App& sub, unsigned& threads) {
  sub.add_option("--threads", threads, "worker threads for the per-case work (default: every core)")
      ->check(CLI::Range(1u, 4096u));
}

Result<options::CompileRequest> compile_request_from(const ProgramArgs& args) {
  // The flags as core's option object: core reads and checks them as it
  // does Python's keywords and TypeScript's options (the CLI11 checks above
  // already refused a bad value, in the same table's terms).
  nlohmann::json bag = {{"filename", args.path}, {"function", args.function}};
  if (!args.dtype.empty()) bag["dtype"] = args.dtype;
  if (!args.semantics.empty()) bag["semantics"] = args.semantics;
  if (!args.surrogate.empty()) bag["surrogate"] = args.surrogate;
  if (args.temperature) bag["temperature"] = *args.temperature;
  if (args.max_iterations) bag["max_iterations"] = static_cast<std::uint64_t>(*args.max_iterations);
  if (args.max_nodes) bag["max_nodes"] = static_cast<std::uint64_t>(*args.max_nodes);
  auto request = options::compile_request(bag, options::KeySpelling::Cli, HintSpelling::Cli);
  if (!request) return request.error();
  // --input NAME=DOMAIN is the CLI's own spelling of the inputs option.
  std::vector<std::pair<std::string, Domain>>& inputs = request->options.inputs;
  for (const std::string& item : args.inputs) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error("--input '" + item + "' must be NAME=DOMAIN, e.g. a=int32:-128:127");
    auto d = parse_domain(item.substr(eq + 1));
    if (!d) return make_error("--input " + item.substr(0, eq) + ": " + d.error().message);
    for (const auto& [name, _] : inputs)
      if (name == item.substr(0, eq)) return make_error("--input " + name + " is given twice");
    inputs.emplace_back(item.substr(0, eq), *d);
  }
  return request;
}

Result<LoadedProgram> load_program(const ProgramArgs& args) {
  // An artifact over the loader's limit is refused by its size, unread.
  // A stream (/dev/stdin, a pipe) is read up to the limit and no further.
  auto text = read_file(args.path, ends_with(args.path, ".py") ? kMaxSourceBytes : kMaxJsonTextBytes);
  if (!text) return text.error();
  LoadedProgram out;
  if (ends_with(args.path, ".py")) {
    auto request = compile_request_from(args);
    if (!request) return request.error();
    // The flags given win over the file's `# tensorcode: compile` line.
    auto opts = request->for_source(*text);
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
  auto request = compile_request_from(args);
  if (!request) return request.error();
  auto program = load_artifact(*text);
  if (!program) {
    Diagnostic d = program.error();
    d.loc.reset();  // artifact errors name the node; the location is the Python source's, not this file's
    d.message = args.path + ": " + d.message;
    return d;
  }
  out.program = std::move(*program);
  // The policy flags given replace the artifact's root policy (checked by core above).
  Policy policy;
  if (!args.semantics.empty()) policy.semantics = request->options.semantics;
  if (!args.surrogate.empty()) policy.surrogate = request->options.surrogate;
  if (args.temperature) policy.temperature = request->options.temperature;
  apply_policy(policy, out.program);
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

std::optional<LoadedProgram> load_reported(const ProgramArgs& args) {
  auto loaded = load_program(args);
  if (!loaded) {
    report(loaded.error(), args.path);
    return std::nullopt;
  }
  report_warnings(loaded->warnings, args.path);
  return std::move(*loaded);
}

nlohmann::ordered_json number(double v) {
  // -0.0 stays a double (written "-0.0"): as an integer it would lose its sign.
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 9007199254740992.0 && !(v == 0 && std::signbit(v)))
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
