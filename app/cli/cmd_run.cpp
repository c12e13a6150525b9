// `tensorcode run PROGRAM --set NAME=VALUE ...` evaluates one case with the
// checked evaluator and prints its outputs; `--cases FILE.jsonl` evaluates a
// whole file of cases with the batched evaluator and prints one JSON line per
// case (its outputs, or {"error": ...}).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common.h"
#include "session/program_session.h"
#include "base/json_append.h"
#include "verify/cases.h"
#include "options.h"
#include "scale_out.h"
#include "ir/artifact.h"
#ifdef TC_HAVE_VULKAN
#include "vulkan/runner.h"  // backends engineer: the vulkan seam below
#endif

namespace tc::cli {
namespace {

struct RunArgs {
  ProgramArgs program;
  AssignmentArgs assignments;
  std::string cases;
  std::string backend = "cpu";
  std::string out;
  unsigned threads = 0;  ///< 0: every core
  std::string plan = "auto";  ///< --plan: EvalOptions::plan
  bool plan_status = false;   ///< --plan-status: print Evaluator::plan_status() on stderr at the end
};


// ---------------------------------------------------------------------------
// Backend seam (owned by the backends engineer): evaluates a batch on a
// backend other than the CPU evaluator. Replace the body of this one function
// when the Vulkan runner is wired in; it receives the same columns (input_ids
// order) and fixed parameter/state values as Evaluator::run_batch and must
// fill `out` the same way.
Status run_batch_on_backend(const std::string& backend, const Program& program,
                            std::span<const std::span<const double>> columns, std::size_t count, const Env& fixed,
                            BatchResult& out) {
#ifdef TC_HAVE_VULKAN
  if (backend != "vulkan") return make_error("unknown backend '" + backend + "' (expected cpu or vulkan)");
  // Parameters become shader constants, so --param values are applied to a
  // copy of the program before the shader is emitted.
  Program copy = program;
  for (const auto& [name, v] : fixed.params) {
    auto id = copy.find_named(Op::Parameter, name);
    if (!id) return make_error("unknown parameter '" + name + "'");
    copy.nodes[static_cast<std::size_t>(*id)].value = v;
  }
  auto runner = vk::Runner::create(copy);
  if (!runner) return runner.error();
  return runner->run_batch(columns, count, out);
#else
  (void)program;
  (void)columns;
  (void)count;
  (void)fixed;
  (void)out;
  return make_error("the " + backend + " backend is not available in this build (configured without TC_ENABLE_VULKAN)");
#endif
}
// ---------------------------------------------------------------------------

/// A progress line on standard error for long `--cases` runs: shown only
/// when standard error is a terminal and the run has taken more than a
/// second, redrawn at most ten times a second, erased at the end.
/// Under mpirun, rank 0 draws the counts of every rank (scale::SharedProgress).
class ProgressLine final : public Progress {
 public:
  ProgressLine() : tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  ~ProgressLine() override { clear(); }
  void update(std::uint64_t done, std::uint64_t total, std::string_view what) override {
    draw(std::string(what).c_str(), static_cast<std::size_t>(done), static_cast<std::size_t>(total));
  }
  void draw(const char* what, std::size_t done, std::size_t total) {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || (shown_ && now - last_ < std::chrono::milliseconds(100))) return;
    last_ = now;
    shown_ = true;
    if (total > 0)
      std::fprintf(stderr, "\rrun: %s %zu of %zu cases\x1b[K", what, done, total);
    else
      std::fprintf(stderr, "\rrun: %s %zu cases\x1b[K", what, done);
    std::fflush(stderr);
  }
  void clear() {
    if (shown_) std::fputs("\r\x1b[K", stderr);
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

/// Reports an evaluation error. Locations in a compiled artifact refer to the
/// Python source it came from, not to the .json file, so they are rendered
/// with a file name only when PROGRAM is that source.
void report_runtime(const Diagnostic& d, const LoadedProgram& loaded, const std::string& path) {
  Diagnostic copy = d;
  if (!loaded.source) copy.loc.reset();
  report(copy, path);
}

nlohmann::ordered_json outputs_json(const Program& p, const std::vector<std::vector<double>>& cols, std::size_t c) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t o = 0; o < p.outputs.size(); ++o) json_append(j, p.outputs[o].first, number(cols[o][c]));
  return j;
}

int run_single(const RunArgs& args, const LoadedProgram& loaded, const Evaluator& ev, Env env) {
  auto inputs = parse_assignments(args.assignments.sets, "--set");
  if (!inputs) {
    report(inputs.error());
    return kUsage;
  }
  env.inputs = std::move(*inputs);
  const Program& p = ev.program();
  if (args.backend != "cpu") {
    // One case through the backend seam, so both paths behave alike.
    std::vector<double> values(ev.input_ids().size());
    for (const auto& [name, v] : env.inputs)
      if (!p.find_named(Op::Input, name)) {
        report(make_error("unknown input '" + name + "'"));
        return kRejected;
      }
    for (std::size_t k = 0; k < values.size(); ++k) {
      const std::string& name = p.nodes[static_cast<std::size_t>(ev.input_ids()[k])].name;
      auto it = env.inputs.find(name);
      if (it == env.inputs.end()) {
        report(make_error("missing input '" + name + "'"));
        return kRejected;
      }
      values[k] = it->second;
    }
    std::vector<std::span<const double>> columns;
    for (double& v : values) columns.emplace_back(&v, 1);
    BatchResult br;
    if (Status s = run_batch_on_backend(args.backend, p, columns, 1, env, br); !s) {
      report(s.error());
      return kRejected;
    }
    if (!br.errors.empty()) {
      report_runtime(br.errors.front().second, loaded, args.program.path);
      return kRejected;
    }
    print_json(outputs_json(p, br.outputs, 0));
    return kOk;
  }
  auto r = ev.run(env);
  if (!r) {
    report_runtime(r.error(), loaded, args.program.path);
    return kRejected;
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t o = 0; o < p.outputs.size(); ++o) json_append(j, p.outputs[o].first, number(r->outputs[o]));
  print_json(j);
  return kOk;
}

/// Cases one process holds at once when it cannot stream them (its output
/// goes to a file, or its shard is joined under mpirun): 2^26 cases, 512 MiB
/// per input column.
constexpr std::size_t kMaxCasesInMemory = std::size_t(1) << 26;
/// Cases read, evaluated and printed together when the output streams.
constexpr std::size_t kStreamBlock = std::size_t(1) << 16;

/// Reads cases (the file, or this rank's shard of it under mpirun, whose
/// first line is the file's line `first_line`) into columns (input_ids
/// order), at most `max_count` of them: `more` tells whether reading stopped
/// there with lines left. `lineno` is the file line read last (0 before the
/// first); calls continue from it. Any malformed line is an error naming its
/// 1-based line in the file (Diagnostic::loc.line, column 0); blank lines
/// are skipped.
Status read_cases(std::istream& in, std::size_t& lineno, const std::string& path, const Program& p,
                  const std::vector<NodeId>& ids, std::vector<std::vector<double>>& columns, std::size_t& count,
                  std::size_t max_count, bool& more, scale::SharedProgress& progress) {
  in.exceptions(std::ios::goodbit);
  std::map<std::string, std::size_t, std::less<>> index;
  for (std::size_t k = 0; k < ids.size(); ++k) index.emplace(p.nodes[static_cast<std::size_t>(ids[k])].name, k);
  columns.assign(ids.size(), {});
  count = 0;
  more = false;
  std::string line;
  std::vector<std::uint8_t> seen(ids.size());
  auto fail = [&](const std::string& msg) { return make_error(msg, SourceLoc{static_cast<int>(lineno), 0}); };
  while (true) {
    if (count == max_count) {
      more = in.peek() != std::char_traits<char>::eof();
      break;
    }
    const LineRead got = read_line_bounded(in, line, kMaxCaseLineBytes);
    if (got == LineRead::End) break;
    ++lineno;
    if (got == LineRead::TooLong)
      return fail("the line is longer than " + std::to_string(kMaxCaseLineBytes) + " bytes (a case is one short object)");
    if ((lineno & 0xffff) == 0) progress.update(count, "read");
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = parse_json_limited(line, 4);
    if (!j) return fail(j.error().message);
    if (!j->is_object()) return fail("a case must be a json object of input values");
    std::fill(seen.begin(), seen.end(), 0);
    for (auto& col : columns) col.push_back(0.0);
    for (auto it = j->begin(); it != j->end(); ++it) {
      auto k = index.find(it.key());
      if (k == index.end()) return fail("unknown input '" + quote_user(it.key()) + "'");
      double v;
      if (it->is_number()) {
        v = it->get<double>();
      } else if (it->is_boolean()) {
        v = it->get<bool>() ? 1.0 : 0.0;
      } else {
        return fail("input '" + quote_user(it.key()) + "' must be a number");
      }
      columns[k->second].back() = v;
      seen[k->second] = 1;
    }
    for (std::size_t k = 0; k < ids.size(); ++k)
      if (!seen[k]) return fail("missing input '" + p.nodes[static_cast<std::size_t>(ids[k])].name + "'");
    ++count;
  }
  if (in.bad()) return make_error("cannot read cases file '" + path + "'");
  return ok_status();
}

/// Evaluates `count` cases held in `columns` and appends one line per case
/// to `output`; a batch-level failure (not a case's own) is returned.
std::optional<scale::Failure> evaluate_cases(const RunArgs& args, const Program& p, const Evaluator& ev,
                                             const Env& fixed, const std::vector<std::vector<double>>& columns,
                                             std::size_t count, std::uint64_t first_line, std::uint64_t done_before,
                                             scale::OrderedOutput& output, scale::SharedProgress& evaluating) {
  // CPU chunks bound the memory of the results and let progress show (the
  // evaluator blocks cases further inside each chunk). Another backend gets
  // the whole batch at once, as it prepares its device program per call.
  const std::size_t chunk = args.backend == "cpu" ? kStreamBlock : std::max<std::size_t>(count, 1);
  BatchResult br;
  std::string text;
  std::vector<std::span<const double>> spans(columns.size());
  for (std::size_t start = 0; start < count; start += chunk) {
    const std::size_t m = std::min(chunk, count - start);
    for (std::size_t k = 0; k < columns.size(); ++k) spans[k] = std::span<const double>(columns[k].data() + start, m);
    Status s = args.backend == "cpu" ? ev.run_batch(spans, m, fixed, br, scale::threads(args.threads))
                                     : run_batch_on_backend(args.backend, p, spans, m, fixed, br);
    if (!s) {
      Diagnostic d = s.error();
      if (!d.loc || !d.loc->valid()) d.file.clear();  // as report() prints it
      return scale::Failure{first_line, kRejected, d.format()};
    }
    text.clear();
    std::size_t next_error = 0;
    for (std::size_t c = 0; c < m; ++c) {
      if (br.failed[c]) {
        while (next_error < br.errors.size() && br.errors[next_error].first < c) ++next_error;
        std::string msg = next_error < br.errors.size() && br.errors[next_error].first == c
                              ? br.errors[next_error].second.message
                              : "evaluation failed";
        nlohmann::ordered_json j;
        j["error"] = msg;
        text += j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      } else {
        text += outputs_json(p, br.outputs, c).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
      }
      text += '\n';
    }
    output.append(text);
    evaluating.update(done_before + start + m, "evaluated");
  }
  return std::nullopt;
}

/// "FILE:LINE: error: MESSAGE", as replay reports event lines.
scale::Failure bad_line_failure(const std::string& path, const Diagnostic& d) {
  return scale::Failure{d.loc ? static_cast<std::uint64_t>(d.loc->line) : 0, kRejected,
                        d.loc ? path + ":" + std::to_string(d.loc->line) + ": error: " + d.message
                              : Diagnostic(d).format()};
}

/// One process writing to stdout: blocks of cases are read, evaluated and
/// printed in turn, so a pipe that never ends is served in bounded memory.
/// A malformed line stops the run there, after the lines of the blocks
/// before it were printed.
int stream_cases(const RunArgs& args, const Program& p, const Evaluator& ev, const Env& fixed,
                 scale::LineInput& input, ProgressLine& progress) {
  scale::OrderedOutput output(args.out);
  scale::SharedProgress evaluating(&progress, 0);
  std::vector<std::vector<double>> columns;
  std::size_t lineno = static_cast<std::size_t>(input.first_line) - 1, count = 0;
  std::uint64_t done = 0;
  for (bool more = true; more;) {
    const std::uint64_t block_line = lineno + 1;
    Status read = read_cases(*input.stream, lineno, args.cases, p, ev.input_ids(), columns, count, kStreamBlock, more,
                             evaluating);
    if (!read) {
      evaluating.close();
      progress.clear();
      return output.finish(bad_line_failure(args.cases, read.error()));
    }
    if (auto f = evaluate_cases(args, p, ev, fixed, columns, count, block_line, done, output, evaluating)) {
      evaluating.close();
      progress.clear();
      return output.finish(std::move(f));
    }
    done += count;
    std::fflush(stdout);
  }
  evaluating.close();
  progress.clear();
  return output.finish();
}

int run_cases(const RunArgs& args, const LoadedProgram& loaded, const Evaluator& ev, const Env& fixed) {
  const Program& p = ev.program();
  std::vector<std::vector<double>> columns;
  std::size_t count = 0;
  ProgressLine progress;
  // Under mpirun each rank reads its own shard of the file (scale_out.h).
  auto input = scale::open_lines(args.cases, "cases file");
  if (!input) {
    if (!scale::is_remote_failure(input.error())) report(input.error());  // else rank 0 printed it
    return kRejected;
  }
  if (!scale::active() && args.backend == "cpu" && (args.out.empty() || args.out == "-"))
    return stream_cases(args, p, ev, fixed, *input, progress);
  std::optional<scale::Failure> bad_line;
  scale::SharedProgress reading(&progress, 0);
  std::size_t lineno = static_cast<std::size_t>(input->first_line) - 1;
  bool more = false;
  Status read = read_cases(*input->stream, lineno, args.cases, p, ev.input_ids(), columns, count, kMaxCasesInMemory,
                           more, reading);
  reading.close();
  if (!read) {
    bad_line = bad_line_failure(args.cases, read.error());
  } else if (more) {
    bad_line = scale::Failure{static_cast<std::uint64_t>(lineno) + 1, kRejected,
                              args.cases + ":" + std::to_string(lineno + 1) + ": error: more than " +
                                  std::to_string(kMaxCasesInMemory) +
                                  " cases for one process writing a file or joining a job: split the file, or "
                                  "let one process print to standard output, where cases stream in blocks"};
  }
  if (auto f = scale::first_failure(std::move(bad_line))) {  // the first bad line over all ranks
    progress.clear();
    std::fprintf(stderr, "%s\n", f->message.c_str());
    return f->rc;
  }
  scale::OrderedOutput output(args.out);
  // Every rank's cases, so rank 0 shows "evaluated N of TOTAL" for the job.
  scale::SharedProgress evaluating(&progress, scale::total(count));
  auto failed = evaluate_cases(args, p, ev, fixed, columns, count, input->first_line, 0, output, evaluating);
  if (!failed) scale::record_share("run", count);
  evaluating.close();
  progress.clear();
  return output.finish(std::move(failed));
}

int run_command(const RunArgs& args) {
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  Env fixed;
  auto params = parse_assignments(args.assignments.params, "--param");
  if (!params) {
    report(params.error());
    return kUsage;
  }
  fixed.params = std::move(*params);
  auto states = parse_assignments(args.assignments.states, "--state");
  if (!states) {
    report(states.error());
    return kUsage;
  }
  fixed.state = std::move(*states);
  ProgramSession session(std::move(loaded->program));
  auto ev = session.evaluator(std::nullopt, *options::plan(args.plan));  // CLI11 checked the word
  if (!ev) {
    report_runtime(ev.error(), *loaded, args.program.path);
    return kRejected;
  }
  const Evaluator& evaluator = **ev;
  const int rc = !args.cases.empty() ? run_cases(args, *loaded, evaluator, fixed)
                                     : run_single(args, *loaded, evaluator, std::move(fixed));
  if (args.plan_status) std::fprintf(stderr, "plan: %s\n", evaluator.plan_status().summary.c_str());
  return rc;
}

CommandRegistration reg{
    "run", "Evaluate a program with the checked evaluator: one case (--set) or a JSON Lines file of cases (--cases)",
    [](CLI::App& sub) {
      auto args = std::make_shared<RunArgs>();
      add_program_options(sub, args->program);
      add_assignment_options(sub, args->assignments);
      auto* set = sub.get_option("--set");
      auto* cases = sub.add_option("--cases", args->cases,
                                   "JSON Lines file, one object of input values per line; prints one line per case");
      cases->excludes(set);
      sub.add_option("-o,--out", args->out,
                     "with --cases: write the result lines to this file (atomically) instead of stdout")
          ->needs(cases)
          ->check(non_empty_path());
      add_threads_option(sub, args->threads);
      sub.add_option("--backend", args->backend, "where to evaluate: cpu (default) or vulkan")
          ->check(CLI::IsMember({"cpu", "vulkan"}));
      add_table_option(sub, options::OptionId::Plan, args->plan);
      sub.add_flag("--plan-status", args->plan_status,
                   "print which tier ran at the end on stderr ('plan: compiled (avx2)', 'plan: interpreting: ...')");
      sub.footer("Examples:\n  tensorcode run choose.json --set a=5        -> {\"result\": 10}\n"
                 "  tensorcode run choose.json --cases cases.jsonl\n"
                 "A failing case prints {\"error\": MESSAGE} and the batch still exits 0; a malformed\n"
                 "cases line is an error naming the line (exit 3).");
      return [args] { return run_command(*args); };
    }};

}  // namespace
}  // namespace tc::cli
