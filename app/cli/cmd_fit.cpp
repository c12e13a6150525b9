// `tensorcode fit PROGRAM --data CASES.jsonl --target OUTPUT=FIELD ...`
// trains the program's differentiable parameters by gradient descent on the
// squared error, averaged over the cases, and writes the updated artifact.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "verify/cases.h"
#include "options.h"
#include "scale_out.h"
#include "grad/fit.h"
#include "ir/artifact.h"

namespace tc::cli {
namespace {

struct FitArgs {
  ProgramArgs program;
  std::string data;
  std::vector<std::string> targets;  ///< OUTPUT=FIELD
  AssignmentArgs assignments;
  std::string optimizer = "sgd";
  double lr = 0.01;
  std::size_t steps = 100;
  std::string out;
  unsigned threads = 0;  ///< 0: every core
};

/// Terminal progress: drawn on stderr only when it is a terminal and the run
/// has taken more than a second.
class TerminalProgress : public Progress {
 public:
  TerminalProgress() : tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  ~TerminalProgress() override {
    if (shown_) std::fputc('\n', stderr);
  }
  void update(std::uint64_t done, std::uint64_t total, std::string_view what) override {
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || (shown_ && done != total && now - last_ < std::chrono::milliseconds(100)))
      return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\rfit: %llu of %llu %.*s", static_cast<unsigned long long>(done),
                 static_cast<unsigned long long>(total), static_cast<int>(what.size()), what.data());
    std::fflush(stderr);
  }

 private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

struct Target {
  std::string output, field;
};

/// Reads the JSON Lines cases (the file, or this rank's shard of it under
/// mpirun, starting at the file's line `first_line`); errors carry the
/// 1-based line of the file in loc.line. An empty file is checked by the
/// caller (over all shards).
Status read_data(std::istream& in, std::uint64_t first_line, const std::string& path, const Program& p,
                 const std::vector<Target>& targets, std::vector<FitCase>& cases, std::vector<std::size_t>& lines) {
  std::string line;
  std::size_t lineno = static_cast<std::size_t>(first_line) - 1;
  auto fail = [&](const std::string& msg) { return make_error(msg, SourceLoc{static_cast<int>(lineno), 0}); };
  for (LineRead got; (got = read_line_bounded(in, line, kMaxCaseLineBytes)) != LineRead::End;) {
    ++lineno;
    if (got == LineRead::TooLong)
      return fail("the line is longer than " + std::to_string(kMaxCaseLineBytes) + " bytes (a case is one short object)");
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = parse_json_limited(line, 4);
    if (!j) return fail(j.error().message);
    if (!j->is_object()) return fail("a case must be a json object of input and target values");
    FitCase c;
    c.targets.assign(targets.size(), 0.0);
    std::vector<bool> have(targets.size(), false);
    for (auto it = j->begin(); it != j->end(); ++it) {
      double v;
      if (it->is_number()) {
        v = it->get<double>();
      } else if (it->is_boolean()) {
        v = it->get<bool>() ? 1.0 : 0.0;
      } else {
        return fail("field '" + quote_user(it.key()) + "' must be a number");
      }
      if (!std::isfinite(v)) return fail("field '" + quote_user(it.key()) + "' is not a finite number");
      bool used = false;
      for (std::size_t t = 0; t < targets.size(); ++t)
        if (targets[t].field == it.key()) {
          c.targets[t] = v;
          have[t] = true;
          used = true;
        }
      if (p.find_named(Op::Input, it.key())) {
        c.env.inputs[it.key()] = v;
        used = true;
      }
      if (!used) return fail("field '" + quote_user(it.key()) + "' is neither an input nor a target");
    }
    for (std::size_t t = 0; t < targets.size(); ++t)
      if (!have[t]) return fail("missing target field '" + targets[t].field + "'");
    for (const Node& n : p.nodes)
      if (n.op == Op::Input && !c.env.inputs.count(n.name)) return fail("missing input '" + n.name + "'");
    cases.push_back(std::move(c));
    lines.push_back(lineno);
  }
  if (in.bad()) return make_error("cannot read data file '" + path + "'");
  return ok_status();
}

std::string line_message(const std::string& file, std::size_t line, const std::string& message) {
  return file + ":" + std::to_string(line) + ": error: " + message;
}

/// A failed fit: every rank failed at the same step (or before any), so all
/// agree on the error to report, the first in data order; a single process
/// reports its own. Rank 0 prints it (scale_out.h).
int fail_together(std::optional<scale::Failure> mine) {
  auto f = scale::first_failure(std::move(mine));
  if (!f) f = scale::Failure{0, kRejected, "error: fit failed"};  // cannot happen: some rank failed
  std::fprintf(stderr, "%s\n", f->message.c_str());
  return f->rc;
}

int fit_command(const FitArgs& args) {
  std::vector<Target> targets;
  for (const std::string& t : args.targets) {
    auto eq = t.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == t.size()) {
      report(make_error("--target '" + t + "' must be OUTPUT=FIELD"));
      return kUsage;
    }
    targets.push_back({t.substr(0, eq), t.substr(eq + 1)});
  }
  if (!(args.lr > 0) || !std::isfinite(args.lr)) {
    report(make_error("--lr must be finite and greater than 0"));
    return kUsage;
  }
  auto params = parse_assignments(args.assignments.params, "--param");
  if (!params) {
    report(params.error());
    return kUsage;
  }
  // An artifact is trained under --semantics/--surrogate/--temperature but
  // saved with its own policy: only parameter values may change in the output.
  ProgramArgs plain = args.program;
  const bool artifact = args.program.path.size() < 3 || args.program.path.substr(args.program.path.size() - 3) != ".py";
  GradOptions policy;
  if (artifact) {
    if (!plain.semantics.empty()) policy.semantics = semantics_from(plain.semantics);
    if (!plain.surrogate.empty()) policy.surrogate = surrogate_from(plain.surrogate);
    policy.temperature = plain.temperature;
    if (policy.temperature && (!std::isfinite(*policy.temperature) || *policy.temperature <= 0)) {
      report(make_error("--temperature must be finite and greater than 0"));
      return kUsage;
    }
    plain.semantics.clear();
    plain.surrogate.clear();
    plain.temperature.reset();
  }
  auto loaded = load_reported(plain);
  if (!loaded) return kRejected;
  Program program = loaded->program;
  // --param sets the starting values, which the saved artifact then carries forward.
  for (const auto& [name, v] : *params) {
    auto id = program.find_named(Op::Parameter, name);
    if (!id) {
      report(make_error("the program has no parameter '" + name + "'"));
      return kRejected;
    }
    program.nodes[static_cast<std::size_t>(*id)].value = v;
  }
  std::vector<FitCase> cases;
  std::vector<std::size_t> lines;
  // Under mpirun each rank reads and trains on its own shard of the data.
  auto input = scale::open_lines(args.data, "data file");
  if (!input) {
    if (!scale::is_remote_failure(input.error())) report(input.error());  // else rank 0 printed it
    return kRejected;
  }
  std::optional<scale::Failure> bad_line;
  if (Status s = read_data(*input->stream, input->first_line, args.data, program, targets, cases, lines); !s) {
    const Diagnostic& d = s.error();
    bad_line = d.loc ? scale::Failure{static_cast<std::uint64_t>(d.loc->line), kRejected,
                                      line_message(args.data, static_cast<std::size_t>(d.loc->line), d.message)}
                     : scale::Failure{0, kRejected, Diagnostic(d).format()};
  }
  if (auto f = scale::first_failure(std::move(bad_line))) {  // the first bad line over all ranks
    std::fprintf(stderr, "%s\n", f->message.c_str());
    return f->rc;
  }
  const std::uint64_t total_cases = scale::total(cases.size());
  if (total_cases == 0) {
    report(make_error("data file '" + args.data + "' has no cases"));
    return kRejected;
  }
  FitOptions options;
  options.grad = policy;
  for (const Target& t : targets) options.targets.push_back(t.output);
  options.optimizer = args.optimizer == "adam" ? Optimizer::Adam : Optimizer::Sgd;
  options.learning_rate = args.lr;
  options.steps = args.steps;
  options.threads = scale::threads(args.threads);  // under mpirun: this machine's share
  TerminalProgress progress;
  options.progress = &progress;
  options.reduction = scale::fit_reduction();  // data-parallel under mpirun
  options.total_cases = static_cast<std::size_t>(total_cases);
  std::size_t failed = cases.size();
  auto r = fit(program, cases, options, &failed);
  std::optional<scale::Failure> mine;
  if (!r && failed < cases.size()) {
    mine = scale::Failure{lines[failed], kRejected, line_message(args.data, lines[failed], r.error().message)};
  } else if (!r && !scale::is_remote_failure(r.error())) {
    Diagnostic d = r.error();
    if (!loaded->source) d.loc.reset();
    if (d.file.empty()) d.file = args.program.path;
    if (!d.loc || !d.loc->valid()) d.file.clear();  // as report() prints it
    mine = scale::Failure{UINT64_MAX - 1, kRejected, d.format()};
  }
  if (!r) return fail_together(std::move(mine));
  scale::record_share("fit", cases.size());  // this rank's shard, trained on every step
  // Every rank holds the same trained program; rank 0 writes it.
  if (!args.out.empty() && scale::leader()) {
    if (int rc = write_output(args.out, save_artifact(r->program)); rc != kOk) return rc;
  }
  nlohmann::ordered_json j;
  j["steps"] = r->steps;
  j["optimizer"] = args.optimizer;
  j["initial_loss"] = number(r->initial_loss);
  j["final_loss"] = number(r->final_loss);
  j["parameters"] = nlohmann::ordered_json::object();
  for (const auto& [name, v] : r->parameters) j["parameters"][name] = number(v);
  if (!args.out.empty()) j["output"] = args.out;
  print_json(j);
  return kOk;
}

CommandRegistration reg{
    "fit",
    "Train the program's parameters on a JSON Lines data file (squared error, averaged over cases)",
    [](CLI::App& sub) {
      auto args = std::make_shared<FitArgs>();
      add_program_options(sub, args->program);
      sub.add_option("--data", args->data, "JSON Lines file: one object per case with input values and target fields")
          ->required();
      sub.add_option("--target", args->targets,
                     "OUTPUT=FIELD: train OUTPUT towards the case's FIELD (repeatable; losses add up)")
          ->required();
      add_assignment_options(sub, args->assignments, kParams, "NAME=VALUE starting value of a parameter (repeatable)");
      sub.add_option("--optimizer", args->optimizer, "sgd (default) or adam")->check(CLI::IsMember({"sgd", "adam"}));
      add_threads_option(sub, args->threads);
      sub.add_option("--lr", args->lr, "learning rate (default 0.01)")->check(finite_above(0, true));
      add_count_option(sub, "--steps", args->steps, "number of full-batch optimizer steps (default 100)");
      add_output_option(sub, args->out, "write the trained artifact here (atomically); without it nothing is written",
                        "-o,--out");
      sub.footer(
          "Loss: mean over cases of the sum over targets of (output - target)^2. Only differentiable\n"
          "parameters change; the written artifact is otherwise identical to PROGRAM.\n"
          "Example:\n  tensorcode fit corrected.json --data cases.jsonl --target result=y --lr 0.01 --steps 1 -o trained.json");
      return [args] { return fit_command(*args); };
    }};

}  // namespace
}  // namespace tc::cli
