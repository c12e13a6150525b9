// `tensorcode replay PROGRAM --events EVENTS.jsonl [--max-steps N]
//  [--from-snapshot S.json] [--snapshot-out S.json]`: drives a stateful
// program with a JSON Lines event file (contract sections 3 and 6).
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
#include <cstdio>
#include <cstring>
#include <string>

#include <sys/stat.h>

#include "base/atomic_file.h"
#include "base/json_append.h"
#include "common.h"
#include "options.h"
#include "runtime/event_log.h"
#include "runtime/runtime.h"

namespace tc::cli {

namespace {

// One events line may hold a large object, but not an unbounded one: a
// longer line is reported as malformed instead of being read into memory.
constexpr std::size_t kMaxEventLine = std::size_t(16) << 20;

struct ReplayArgs {
  ProgramArgs program;
  std::string events;
  std::string max_steps;  // parsed here: CLI11 would wrap "-3" around to a huge unsigned value
  std::string from_snapshot;
  std::string snapshot_out;
  CLI::Option* max_steps_option = nullptr;
};

enum class LineRead { Line, End, TooLong, Error };

// Reads the next line without its '\n'. A last line without a newline
// still counts as a line.
LineRead read_line(std::FILE* f, std::string& line) {
  line.clear();
  bool any = false;
  for (int c = std::getc(f); c != EOF; c = std::getc(f)) {
    any = true;
    if (c == '\n') return LineRead::Line;
    if (line.size() >= kMaxEventLine) return LineRead::TooLong;
    line.push_back(static_cast<char>(c));
  }
  if (std::ferror(f)) return LineRead::Error;
  return any ? LineRead::Line : LineRead::End;
}

nlohmann::ordered_json named_json(const std::vector<std::string>& names, std::span<const double> values) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < names.size(); ++i) json_append(out, names[i], number(values[i]));
  return out;
}

// Decimal digits only, within uint64.
std::optional<std::uint64_t> parse_count(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

int write_snapshot(const ReplayArgs& a, const Runtime& rt) {
  if (a.snapshot_out.empty()) return kOk;
  return write_output(a.snapshot_out, rt.snapshot_text());
}

int run_replay(const ReplayArgs& a) {
  if (a.max_steps_option->count() > 0 && !a.from_snapshot.empty()) {
    std::fprintf(stderr,
                 "error: --max-steps cannot be combined with --from-snapshot: the snapshot carries its own step "
                 "budget, which is never reset\n");
    return kUsage;
  }
  std::uint64_t max_steps = Runtime::kDefaultMaxSteps;
  if (a.max_steps_option->count() > 0) {
    auto parsed = parse_count(a.max_steps);
    if (!parsed) {
      std::fprintf(stderr, "error: --max-steps must be a non-negative integer, got '%s'\n", a.max_steps.c_str());
      return kUsage;
    }
    max_steps = *parsed;
  }
  auto loaded = load_reported(a.program);
  if (!loaded) return kRejected;

  std::optional<Runtime> runtime;
  if (!a.from_snapshot.empty()) {
    auto text = read_file(a.from_snapshot, std::size_t(1) << 28);
    if (!text) {
      report(text.error());
      return kRejected;
    }
    auto restored = Runtime::restore_text(*text);
    if (!restored) {
      report(make_error(a.from_snapshot + ": " + restored.error().message));
      return kRejected;
    }
    if (auto diff = describe_program_difference(loaded->program, restored->program())) {
      report(make_error(a.program.path + " is not the program of snapshot " + a.from_snapshot +
                        " (first difference, program vs snapshot: " + *diff + ")"));
      return kRejected;
    }
    runtime.emplace(std::move(*restored));
  } else {
    auto created = Runtime::create(std::move(loaded->program), max_steps);
    if (!created) {
      report(created.error(), a.program.path);
      return kRejected;
    }
    runtime.emplace(std::move(*created));
  }

  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(a.events.c_str(), "rb"));
  if (!file) {
    report(make_error("cannot open events file '" + a.events + "': " + std::strerror(errno)));
    return kRejected;
  }

  // Events from a pipe or terminal arrive live: answer each one at once.
  // From a regular file, stdout stays buffered (one write per buffer).
  struct stat info {};
  const bool live = fstat(fileno(file.get()), &info) == 0 && !S_ISREG(info.st_mode);

  Runtime& rt = *runtime;
  std::string line;
  std::size_t line_no = 0;
  std::optional<std::string> failure;
  while (!failure) {
    const LineRead got = read_line(file.get(), line);
    if (got == LineRead::End) break;
    ++line_no;
    if (got == LineRead::TooLong) {
      failure = "the line is longer than " + std::to_string(kMaxEventLine) + " bytes";
      break;
    }
    if (got == LineRead::Error) {
      failure = std::string("cannot read the events file: ") + std::strerror(errno);
      break;
    }
    // Core's one events-line step (runtime/event_log.h, shared with the IDE):
    // blank lines hold no event but still count in line numbers.
    auto step = dispatch_event_line(rt, line, line_no);
    if (!step) {
      failure = step.error().message;
      break;
    }
    if (!*step) continue;
    nlohmann::ordered_json out;
    out["step"] = rt.steps();
    out["outputs"] = named_json(rt.output_names(), (*step)->result.outputs);
    out["state"] = named_json(rt.state_names(), (*step)->result.state);
    print_json(out);
    if (live) std::fflush(stdout);
  }
  std::fflush(stdout);
  if (failure) report_line(a.events, line_no, *failure);
  // The snapshot holds the last committed state, also after a failed event.
  if (int status = write_snapshot(a, rt); status != kOk) return status;
  return failure ? kRejected : kOk;
}

CommandRegistration reg(
    "replay", "Run a stateful program over a JSON Lines file of events, committing state event by event",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<ReplayArgs>();
      add_program_options(sub, args->program);
      sub.add_option("--events", args->events,
                     "JSON Lines file: one object of input values per line (blank lines are skipped)")
          ->required()
          ->type_name("EVENTS.jsonl");
      args->max_steps_option =
          sub.add_option("--max-steps", args->max_steps,
                         "step budget: events that may commit in total (default 1000000; not allowed with "
                         "--from-snapshot)")
              ->type_name("N");
      sub.add_option("--from-snapshot", args->from_snapshot,
                     "resume from this snapshot: its state, steps and budget are used, and PROGRAM must be the "
                     "snapshot's program")
          ->type_name("S.json");
      sub.add_option("--snapshot-out", args->snapshot_out,
                     "write a snapshot of the last committed state here (also after a failed event)")
          ->type_name("S.json")
          ->check(non_empty_path());
      sub.footer("Prints one JSON line per committed event: {\"step\": N, \"outputs\": {...}, \"state\": {...}}.\n"
                 "The first failing event stops the replay with 'EVENTS:LINE: error: ...' and exit status 3.");
      return [args] { return run_replay(*args); };
    });

}  // namespace

}  // namespace tc::cli
