#pragma once
// Runs the built `tensorcode` binary and captures its exit status and streams.
#include <string>
#include <vector>

namespace tc::testing {

struct CliResult {
  int status = -1;  ///< exit status, or 128+signal when killed by a signal
  std::string out;
  std::string err;
};

/// Runs TC_CLI with `args` (no shell involved), optional text on stdin.
CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = {});
/// Same, with standard output going to `stdout_path` (e.g. /dev/full);
/// CliResult::out stays empty.
CliResult run_cli_stdout_to(const std::vector<std::string>& args, const std::string& stdout_path);

/// Starts TC_CLI with `args` (streams on /dev/null), SIGKILLs it after
/// `micros` microseconds and reaps it; true when the kill ended it (false
/// when it had finished first).
bool run_cli_killed_after(const std::vector<std::string>& args, unsigned micros);

/// A fresh temporary directory for one test, removed with its contents when
/// the test process exits.
std::string temp_dir();
/// Writes `text` to `dir/name` and returns the path.
std::string write_temp(const std::string& dir, const std::string& name, const std::string& text);

}  // namespace tc::testing
