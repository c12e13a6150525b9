// `tensorcode gradcheck PROGRAM --set ...` compares reverse-mode gradients
// with central finite differences at one point.
#include <cmath>
#include <memory>
#include <tuple>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "options.h"
#include "grad/gradients.h"

namespace tc::cli {
namespace {

struct GradCheckArgs {
  ProgramArgs program;
  AssignmentArgs assignments;
  std::string output;
  double eps = 1e-6;
  std::optional<double> tolerance;
};

int gradcheck_command(const GradCheckArgs& args) {
  if (!(args.eps > 0) || !std::isfinite(args.eps)) {
    report(make_error("--eps must be finite and greater than 0"));
    return kUsage;
  }
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  auto assigned = args.assignments.env();
  if (!assigned) {
    report(assigned.error());
    return kUsage;
  }
  Env env = std::move(*assigned);
  GradCheckOptions options;
  options.grad.output = args.output;
  options.eps = args.eps;
  auto r = gradient_check(loaded->program, env, options);
  if (!r) {
    Diagnostic d = r.error();
    if (!loaded->source) d.loc.reset();
    report(d, args.program.path);
    return kRejected;
  }
  nlohmann::ordered_json j;
  j["max_rel_diff"] = r->max_rel_diff;
  j["gradients"] = nlohmann::ordered_json::object();
  for (const auto& [name, g] : r->gradients) j["gradients"][name] = number(g);
  j["finite_differences"] = nlohmann::ordered_json::object();
  for (const auto& [name, g] : r->finite_differences) j["finite_differences"][name] = number(g);
  print_json(j);
  return args.tolerance && r->max_rel_diff > *args.tolerance ? kMismatch : kOk;
}

CommandRegistration reg{
    "gradcheck",
    "Compare reverse-mode gradients with central finite differences at one point",
    [](CLI::App& sub) {
      auto args = std::make_shared<GradCheckArgs>();
      add_program_options(sub, args->program);
      add_assignment_options(sub, args->assignments);
      sub.add_option("--output", args->output, "output to differentiate (default: result, else the first output)");
      sub.add_option("--eps", args->eps, "relative finite-difference step: h = eps * max(1, |value|) (default 1e-6)")
          ->check(finite_above(0, true));
      sub.add_option("--tolerance", args->tolerance,
                     "exit with status 1 when max_rel_diff exceeds this (default: always exit 0)")
          ->check(finite_above(0, false));
      sub.footer(
          "max_rel_diff is the largest |g - fd| / max(1, |g|, |fd|) over the reported leaves.\n"
          "Choose points away from decision boundaries. Under hybrid semantics the surrogate\n"
          "terms differ from finite differences of the hard forward by design.");
      return [args] { return gradcheck_command(*args); };
    }};

}  // namespace
}  // namespace tc::cli
