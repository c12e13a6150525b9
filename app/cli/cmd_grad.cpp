// `tensorcode grad PROGRAM --set NAME=VALUE ...` prints the value of one
// output and its gradient with respect to every differentiable input and
// parameter, in the program's semantics (or --semantics, which replaces only
// the root semantics).
#include <cmath>
#include <memory>
#include <tuple>
#include <string>
#include <vector>

#include "common.h"
#include "options.h"
#include "grad/gradients.h"
#include "session/program_session.h"

namespace tc::cli {
namespace {

struct GradArgs {
  ProgramArgs program;
  AssignmentArgs assignments;
  std::string output;
};

int grad_command(const GradArgs& args) {
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  auto assigned = args.assignments.env();
  if (!assigned) {
    report(assigned.error());
    return kUsage;
  }
  Env env = std::move(*assigned);
  GradOptions options;
  options.output = args.output;
  ProgramSession session(std::move(loaded->program));
  auto r = session.gradients(env, options);
  if (!r) {
    // Locations in an artifact refer to its Python source, not to the .json.
    Diagnostic d = r.error();
    if (!loaded->source) d.loc.reset();
    report(d, args.program.path);
    return kRejected;
  }
  nlohmann::ordered_json grads = nlohmann::ordered_json::object();
  for (const auto& [name, g] : r->gradients) grads[name] = number(g);
  nlohmann::ordered_json j;
  j["result"] = number(r->result);
  j["gradients"] = std::move(grads);
  print_json(j);
  return kOk;
}

CommandRegistration reg{
    "grad",
    "Differentiate one output with respect to every differentiable input and parameter",
    [](CLI::App& sub) {
      auto args = std::make_shared<GradArgs>();
      add_program_options(sub, args->program);
      add_assignment_options(sub, args->assignments);
      sub.add_option("--output", args->output, "output to differentiate (default: result, else the first output)");
      sub.footer(
          "--semantics replaces the program's root semantics (nodes from include keep their own):\n"
          "exact (piecewise derivatives, decisions have zero gradient), relaxed (derivative of the\n"
          "smooth relaxation) or hybrid (exact forward, surrogate derivative for decisions).\n"
          "Example:\n  tensorcode grad gated.json --set x=5   -> {\"result\": 0, \"gradients\": {\"x\": 0, \"weight\": 5}}");
      return [args] { return grad_command(*args); };
    }};

}  // namespace
}  // namespace tc::cli
