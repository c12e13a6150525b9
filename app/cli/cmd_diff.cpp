// `tensorcode diff A B`: what changed between two programs (artifacts or
// Python sources compiled with the usual flags): nodes added, removed and
// changed by a structural match, inputs, parameters and state, and with
// --set or --cases whether each output computes the same values. Text by
// default, --json for the tensorcode.diff document (docs/diff.md).
//
// Exit status, as diff(1): 0 the programs are the same, 1 they differ, 2 a
// usage error, 3 a program or the cases were rejected.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "diff/diff.h"
#include "diff/diff_report.h"
#include "ir/artifact.h"
#include "options.h"
#include "verify/cases.h"
#include "workbench/workbench.h"

namespace tc::cli {
namespace {

/// The most cases --cases reads (each costs 8 bytes per input and side).
constexpr std::size_t kMaxDiffCases = std::size_t(1) << 24;

struct DiffArgs {
  ProgramArgs a;  ///< A's path and the compile flags both sides use
  std::string b_path;
  std::vector<std::string> sets;
  std::string cases;
  bool json = false;
  bool values_only = false;
  std::size_t limit = 20;
  std::size_t examples = 10;
  unsigned threads = 0;
};

bool is_source(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0; }

/// One side's load. The compile-only flags are meant for the source side
/// when the other is an artifact, so they are dropped for that artifact; two
/// artifacts with those flags are refused as for every other command.
Result<LoadedProgram> load_side(const DiffArgs& args, const std::string& path, const std::string& other) {
  ProgramArgs side = args.a;
  side.path = path;
  if (!is_source(path) && is_source(other)) {
    side.inputs.clear();
    side.function.clear();
    side.dtype.clear();
  }
  return load_program(side);
}

/// Reads a JSON Lines file of cases, one object of input values per line
/// (blank lines skipped). Errors name the file and line.
int read_cases_file(const std::string& path, DiffCases& cases) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    report(make_error("cannot open cases file '" + quote_user(path) + "'"));
    return kRejected;
  }
  std::string line;
  std::size_t lineno = 0;
  std::vector<std::pair<std::string, double>> values;
  while (true) {
    const LineRead got = read_line_bounded(in, line, kMaxCaseLineBytes);
    if (got == LineRead::End) break;
    ++lineno;
    auto fail = [&](const std::string& msg) {
      report_line(path, lineno, msg);
      return kRejected;
    };
    if (got == LineRead::TooLong)
      return fail("the line is longer than " + std::to_string(kMaxCaseLineBytes) + " bytes (a case is one short object)");
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (cases.count == kMaxDiffCases) return fail("more than " + std::to_string(kMaxDiffCases) + " cases");
    auto j = parse_json_limited(line, 4);
    if (!j) return fail(j.error().message);
    if (!j->is_object()) return fail("a case must be a json object of input values");
    values.clear();
    for (auto it = j->begin(); it != j->end(); ++it) {
      if (it->is_number()) values.emplace_back(it.key(), it->get<double>());
      else if (it->is_boolean()) values.emplace_back(it.key(), it->get<bool>() ? 1.0 : 0.0);
      else return fail("input '" + quote_user(it.key()) + "' must be a number");
    }
    if (Status s = add_diff_case(cases, values); !s) return fail(s.error().message);
  }
  if (in.bad()) {
    report(make_error("cannot read cases file '" + quote_user(path) + "'"));
    return kRejected;
  }
  if (cases.count == 0) {
    report(make_error("cases file '" + quote_user(path) + "' holds no case"));
    return kRejected;
  }
  return kOk;
}

int run_diff(const DiffArgs& args) {
  if (args.values_only && args.sets.empty() && args.cases.empty()) {
    report(make_error("--values-only compares output values, so it needs --set or --cases"));
    return kUsage;
  }
  DiffCases cases;
  bool with_cases = false;
  if (!args.sets.empty()) {
    auto parsed = parse_assignments(args.sets, "--set");
    if (!parsed) {
      report(parsed.error());
      return kUsage;
    }
    std::vector<std::pair<std::string, double>> values(parsed->begin(), parsed->end());
    if (Status s = add_diff_case(cases, values); !s) {
      report(s.error());
      return kUsage;
    }
    with_cases = true;
  }
  if (!args.cases.empty()) {
    if (int rc = read_cases_file(args.cases, cases); rc != kOk) return rc;
    with_cases = true;
  }

  auto a = load_side(args, args.a.path, args.b_path);
  if (!a) {
    report(a.error());
    return kRejected;
  }
  auto b = load_side(args, args.b_path, args.a.path);
  if (!b) {
    report(b.error());
    return kRejected;
  }
  report_warnings(a->warnings);
  report_warnings(b->warnings);

  DiffOptions options;
  options.cases = with_cases ? &cases : nullptr;
  options.max_examples = args.examples;
  options.threads = args.threads;
  const ProgramSession sa(std::move(a->program)), sb(std::move(b->program));
  auto d = workbench::diff(sa, sb, options);
  if (!d) {
    report(d.error());
    return kRejected;
  }
  if (args.json) {
    print_json(diff_to_json(*d, sa.program(), sb.program()));
  } else {
    DiffTextOptions text;
    text.a_label = args.a.path;
    text.b_label = args.b_path;
    text.limit = args.limit;
    const std::string s = diff_to_text(*d, sa.program(), sb.program(), text);
    std::fwrite(s.data(), 1, s.size(), stdout);
  }
  const bool same = args.values_only ? d->same_values() : d->same();
  return same ? kOk : kMismatch;
}

CommandRegistration reg{
    "diff",
    "Compare two programs: nodes added, removed and changed, parameters, and output values on cases "
    "(exit 0 same, 1 different)",
    [](CLI::App& sub) {
      auto args = std::make_shared<DiffArgs>();
      sub.add_option("A", args->a.path, "the first program: artifact (.json) or Python source (.py)")->required();
      sub.add_option("B", args->b_path, "the second program: artifact (.json) or Python source (.py)")->required();
      add_program_options(sub, args->a, /*with_positional=*/false);
      auto* set = sub.add_option("--set", args->sets,
                                 "NAME=VALUE of an input, for one case on which the outputs are compared (repeatable)");
      auto* cases = sub.add_option("--cases", args->cases,
                                   "JSON Lines file of cases (one object of input values per line) on which the "
                                   "outputs are compared");
      set->excludes(cases);
      sub.add_flag("--json", args->json, "print the tensorcode.diff JSON document instead of the text");
      sub.add_flag("--values-only", args->values_only,
                   "the exit status tells whether the output values differ on the cases, not the circuits");
      add_count_option(sub, "--limit", args->limit, "lines per list in the text form (default 20)");
      add_count_option(sub, "--examples", args->examples, "differing cases kept per output (default 10)", 0);
      add_threads_option(sub, args->threads);
      return [args] { return run_diff(*args); };
    }};

}  // namespace
}  // namespace tc::cli
