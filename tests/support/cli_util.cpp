#include "cli_util.h"
#include "support/test_paths.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace tc::testing {

namespace {
std::string slurp_path(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

namespace {
/// The folders temp_dir() made, removed when the test process exits, so a
/// run of the suite leaves nothing in /tmp. Only by the process that made
/// them: a forked child (a death test) that exits normally must not take
/// its parent's files away.
struct TempDirs {
  pid_t owner = ::getpid();
  std::mutex m;
  std::vector<std::string> dirs;
  ~TempDirs() {
    if (::getpid() != owner) return;
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
  }
};
TempDirs& temp_dirs() {
  static TempDirs t;
  return t;
}
}  // namespace

std::string temp_dir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "tc-cli-test-XXXXXX").string();
  char* d = mkdtemp(tmpl.data());
  if (!d) return std::filesystem::temp_directory_path().string();
  TempDirs& t = temp_dirs();
  std::lock_guard<std::mutex> lock(t.m);
  t.dirs.emplace_back(d);
  return d;
}

std::string write_temp(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

namespace {
CliResult spawn_cli(const std::vector<std::string>& args, const std::string& stdin_text, const std::string* stdout_to) {
  std::string dir = temp_dir();
  std::string in_path = write_temp(dir, "stdin", stdin_text);
  std::string out_path = stdout_to ? *stdout_to : dir + "/stdout", err_path = dir + "/stderr";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> argv_s = {TC_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  CliResult r;
  if (posix_spawn(&pid, TC_CLI, &fa, nullptr, argv.data(), environ) != 0) {
    posix_spawn_file_actions_destroy(&fa);
    r.err = "cannot start " + std::string(TC_CLI);
    return r;
  }
  posix_spawn_file_actions_destroy(&fa);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!stdout_to) r.out = slurp_path(out_path);
  r.err = slurp_path(err_path);
  for (const std::string& f : {in_path, dir + "/stdout", err_path}) ::unlink(f.c_str());
  ::rmdir(dir.c_str());
  return r;
}
}  // namespace

CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text) {
  return spawn_cli(args, stdin_text, nullptr);
}

CliResult run_cli_stdout_to(const std::vector<std::string>& args, const std::string& stdout_path) {
  return spawn_cli(args, {}, &stdout_path);
}

bool run_cli_killed_after(const std::vector<std::string>& args, unsigned micros) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> argv_s = {TC_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, TC_CLI, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return false;
  usleep(micros);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

}  // namespace tc::testing
