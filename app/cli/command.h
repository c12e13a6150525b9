#pragma once
/// Each CLI command lives in its own cmd_<name>.cpp and registers itself with
/// a static CommandRegistration, so commands can be added without touching
/// main.cpp.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tc::cli {

/// Exit statuses of contract section 6.
enum Exit : int { kOk = 0, kMismatch = 1, kUsage = 2, kRejected = 3 };

/// Adds the command's options to `sub` and returns the function that runs it
/// after parsing (its return value is the exit status).
using CommandSetup = std::function<std::function<int()>(CLI::App& sub)>;

struct CommandSpec {
  std::string name;
  std::string description;
  CommandSetup setup;
};

std::vector<CommandSpec>& command_registry();

struct CommandRegistration {
  CommandRegistration(std::string name, std::string description, CommandSetup setup) {
    command_registry().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

}  // namespace tc::cli
