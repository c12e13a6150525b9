#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common.h"

namespace tc::cli {

CLI::Validator count_range(std::uint64_t min, std::uint64_t max) {
  std::string want = "an integer of at least " + std::to_string(min);
  if (max != UINT64_MAX) want = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max, want](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20;
        for (char c : text) digits = digits && c >= '0' && c <= '9';
        std::uint64_t v = 0;
        if (digits) {
          errno = 0;
          v = std::strtoull(text.c_str(), nullptr, 10);
          digits = errno != ERANGE;
        }
        if (!digits || v < min || v > max) {
          std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
          return "must be " + want + ", got '" + shown + "'";
        }
        return {};
      },
      want);
}

CLI::Validator finite_above(double min, bool strict) {
  std::string want = std::string("a finite number ") + (strict ? "greater than " : "of at least ");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", min);
  want += buf;
  return CLI::Validator(
      [min, strict, want](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        double v = std::strtod(text.c_str(), &end);
        bool ok = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v) && (strict ? v > min : v >= min);
        if (!ok) {
          std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
          return "must be " + want + ", got '" + shown + "'";
        }
        return {};
      },
      want);
}

Result<Env> AssignmentArgs::env() const { return env_from_assignments(sets, params, states); }

void add_assignment_options(CLI::App& sub, AssignmentArgs& args, unsigned which, const std::string& param_description) {
  if (which & kSets) sub.add_option("--set", args.sets, "NAME=VALUE for an input (repeatable; true/false allowed)");
  if (which & kParams)
    sub.add_option("--param", args.params,
                   param_description.empty() ? "NAME=VALUE overriding a parameter's stored value (repeatable)"
                                             : param_description);
  if (which & kStates)
    sub.add_option("--state", args.states, "NAME=VALUE for a state value (default: its initial value; repeatable)");
}

const CLI::Validator& non_empty_path() {
  // `-o ''` used to mean "no path": the output went to stdout with exit 0.
  static const CLI::Validator v(
      [](std::string& s) { return s.empty() ? std::string("the path is empty: name a file") : std::string(); }, "FILE");
  return v;
}

CLI::Option* add_output_option(CLI::App& sub, std::string& path, const std::string& description,
                               const std::string& names) {
  return sub.add_option(names, path, description)->type_name("FILE")->check(non_empty_path());
}

}  // namespace tc::cli
