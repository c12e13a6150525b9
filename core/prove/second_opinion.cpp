#include "prove/second_opinion.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/child_process.h"

namespace tc::prove {

std::string smtlib_script(const z3::expr& query, const std::vector<std::string>& vars) {
  z3::context& c = query.ctx();
  const char* text = Z3_benchmark_to_smtlib_string(c, "tensorcode prove", "QF_BVFP", "unknown", "", 0, nullptr, query);
  c.check_error();
  std::string out = text;
  if (!vars.empty()) {
    out += "(get-value (";
    for (std::size_t k = 0; k < vars.size(); ++k) out += (k ? " " : "") + vars[k];
    out += "))\n";
  }
  return out;
}

namespace {

/// The bits after "#b" at `at`; advances `at` past them.
std::string read_bits(const std::string& s, std::size_t& at) {
  if (s.compare(at, 2, "#b") != 0) return {};
  at += 2;
  const std::size_t begin = at;
  while (at < s.size() && (s[at] == '0' || s[at] == '1')) ++at;
  return s.substr(begin, at - begin);
}

std::uint64_t bits_value(const std::string& b) {
  std::uint64_t v = 0;
  for (char ch : b) v = (v << 1) | static_cast<std::uint64_t>(ch == '1');
  return v;
}

std::optional<double> read_value(const std::string& s, std::size_t at) {
  while (at < s.size() && s[at] == ' ') ++at;
  if (s.compare(at, 2, "#b") == 0) {
    const std::string b = read_bits(s, at);
    if (b.size() != 32) return std::nullopt;
    return static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits_value(b))));
  }
  if (s.compare(at, 4, "(fp ") == 0) {
    at += 4;
    const std::string sign = read_bits(s, at);
    ++at;
    const std::string exp = read_bits(s, at);
    ++at;
    const std::string sig = read_bits(s, at);
    if (sign.size() != 1) return std::nullopt;
    if (exp.size() == 11 && sig.size() == 52) {
      const std::uint64_t bits = (bits_value(sign) << 63) | (bits_value(exp) << 52) | bits_value(sig);
      double v = 0;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
    if (exp.size() == 8 && sig.size() == 23) {
      const auto bits = static_cast<std::uint32_t>((bits_value(sign) << 31) | (bits_value(exp) << 23) | bits_value(sig));
      float v = 0;
      std::memcpy(&v, &bits, sizeof v);
      return static_cast<double>(v);
    }
    return std::nullopt;
  }
  if (s.compare(at, 9, "(_ +zero ") == 0) return 0.0;
  if (s.compare(at, 9, "(_ -zero ") == 0) return -0.0;
  return std::nullopt;  // NaN or infinity: never an input in its domain
}

}  // namespace

std::map<std::string, double> read_cvc5_values(const std::string& text, const std::vector<std::string>& vars) {
  std::map<std::string, double> out;
  for (const std::string& v : vars) {
    const std::size_t at = text.find("(" + v + " ");
    if (at == std::string::npos) continue;
    if (auto x = read_value(text, at + v.size() + 2)) out.emplace(v, *x);
  }
  return out;
}

Cvc5Run ask_cvc5(const std::string& command, const std::string& script, const std::vector<std::string>& vars,
                 double timeout_s, const std::atomic<bool>* cancel) {
  Cvc5Run out{{"cvc5", "error", 0, ""}, {}};
  const auto t0 = std::chrono::steady_clock::now();
  // The script goes through a private temporary file (the child's stdin is
  // /dev/null), removed whatever happens.
  std::string path = (std::filesystem::temp_directory_path() / "tensorcode-prove-XXXXXX").string();
  const int fd = mkstemp(path.data());
  if (fd < 0) {
    out.answer.detail = "cannot create a temporary file for the second solver";
    return out;
  }
  close(fd);
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << script;
    if (!f) {
      std::remove(path.c_str());
      out.answer.detail = "cannot write the query for the second solver";
      return out;
    }
  }
  const auto ms = static_cast<long long>(std::max(1.0, timeout_s * 1000.0));
  ChildLimits limits;
  limits.timeout_s = timeout_s + 5.0;  // cvc5's own limit first; this one if it does not stop
  limits.cancel = cancel;
  limits.max_output = 64 * 1024;
  std::vector<std::string> argv = {command, "--lang=smt2", "--tlimit=" + std::to_string(ms)};
  if (!vars.empty()) argv.push_back("--produce-models");
  argv.push_back(path);
  const ChildResult r = run_child(argv, limits);
  std::remove(path.c_str());
  out.answer.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  switch (r.end) {
    case ChildResult::End::NotStarted:
      out.answer.answer = "unavailable";
      out.answer.detail = r.output;
      return out;
    case ChildResult::End::TimedOut: out.answer.answer = "timeout"; return out;
    case ChildResult::End::Cancelled: out.answer.answer = "cancelled"; return out;
    case ChildResult::End::Exited: case ChildResult::End::Signalled: break;
  }
  std::string first = r.output.substr(0, r.output.find('\n'));
  while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.pop_back();
  if (first == "unsat") {
    out.answer.answer = "unsat";
  } else if (first == "sat") {
    out.answer.answer = "sat";
    out.model = read_cvc5_values(r.output, vars);
  } else if (first == "unknown") {
    const bool timed_out = r.output.find("timeout") != std::string::npos || r.output.find("resourceout") != std::string::npos;
    out.answer.answer = timed_out ? "timeout" : "unknown";
  } else if (r.output.find("time limit") != std::string::npos || r.output.find("timeout") != std::string::npos) {
    out.answer.answer = "timeout";
  } else {
    out.answer.detail = r.describe(timeout_s) + ": " + r.output.substr(0, 300);
  }
  return out;
}

}  // namespace tc::prove
