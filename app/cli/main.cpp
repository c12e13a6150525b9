// tensorcode: the command-line client of the engine.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>

#include "command.h"
#include "scale_out.h"

namespace tc::cli {
std::vector<CommandSpec>& command_registry() {
  static std::vector<CommandSpec> registry;
  return registry;
}
}  // namespace tc::cli

namespace {

int run_cli(int argc, char** argv) {
  using namespace tc::cli;
  CLI::App app{"tensorcode: compile, run, differentiate, verify and export small numerical programs.\n"
               "PROGRAM is an artifact (.json) or Python source (.py, compiled with the compile flags).",
               "tensorcode"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tensorcode 0.1.0");
  app.footer("Exit status: 0 success, 1 verification mismatch, 2 usage error, 3 rejected or failed.\n"
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
    std::fprintf(stderr, "error: %s\n", e.what());
    std::fprintf(stderr, "run 'tensorcode --help' or 'tensorcode COMMAND --help' for usage\n");
    return kUsage;
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
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
  // Under mpirun every rank runs the same command; the session splits the
  // work and makes the ranks agree on the exit status (scale_out.h).
  tc::cli::scale::Session session(argc, argv);
  return session.finish(run_cli(argc, argv));
}
