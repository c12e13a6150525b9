// tensorcode: the command-line client of the engine.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>

#include "base/diagnostic.h"
#include "base/heap_policy.h"
#include "command.h"
#include "scale_out.h"

namespace tc::cli {
std::vector<CommandSpec>& command_registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}
}  // namespace tc::cli

namespace {

/// Every command writes its result to stdout through stdio; a failed write
/// (a full disk, /dev/full, a closed pipe) sets the stream's error flag,
/// which stays set. Flushing here and checking the flag once covers every
/// write of every command: the result is then incomplete, so exit 3.
int checked_stdout(int status) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout)) return status;
  // A command that failed has said why already (one line per error).
  if (status != tc::cli::kOk && status != tc::cli::kMismatch) return status;
  const int err = errno;
  std::fprintf(stderr, "error: cannot write to standard output%s%s\n", err ? ": " : "", err ? std::strerror(err) : "");
  return tc::cli::kRejected;
}

int run_cli(int argc, char** argv) {
  using namespace tc::cli;
  CLI::App app{"tensorcode: compile, run, differentiate, verify and export small numerical programs.\n"
               "PROGRAM is an artifact (.json) or Python source (.py, compiled with the compile flags).",
               "tensorcode"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tensorcode 0.1.0");
  app.footer("Exit status: 0 success, 1 verification mismatch, 2 usage error, 3 rejected or failed,\n"
             "4 no verdict within the limits (prove).\n"
             "Run 'tensorcode COMMAND --help' for a command's options.");

  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (auto& spec : registry) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.description);
    runners.emplace_back(sub, spec.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error (the flag text is the user's: escaped).
    std::string message = e.what();
    message += " (run 'tensorcode --help' or 'tensorcode COMMAND --help' for usage)";
    std::fprintf(stderr, "%s\n", tc::make_error(message).format().c_str());
    return kUsage;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return checked_stdout(run());
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
    scale::abort_after_internal_error();
    return kRejected;
  } catch (const std::exception& e) {
    // Core reports errors as values; reaching here is a bug, but the user
    // still gets one line and a failing status rather than a crash.
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
    scale::abort_after_internal_error();
    return kRejected;
  }
  return kUsage;
}

}  // namespace

int main(int argc, char** argv) {
  tc::keep_freed_memory();  // see base/heap_policy.h: no re-faulting between large steps
  // Under mpirun every rank runs the same command; the session splits the
  // work and makes the ranks agree on the exit status (scale_out.h).
  tc::cli::scale::Session session(argc, argv);
  return session.finish(run_cli(argc, argv));
}
