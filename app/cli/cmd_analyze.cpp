// `tensorcode analyze PROGRAM`: interval of every node and warnings about
// operations that may fail. A diagnostic, not a proof (docs/passes.md): when
// it warns, a hint on stderr names `tensorcode prove FILE`, which decides.
#include <cmath>
#include <cstdio>

#include "common.h"
#include "base/json_append.h"
#include "options.h"
#include "session/program_session.h"
#include "prove/prove.h"

namespace tc::cli {
namespace {

struct AnalyzeArgs {
  ProgramArgs program;
  AssignmentArgs assignments;
  bool free_parameters = false;
};

nlohmann::ordered_json end_json(double v) {
  if (std::isinf(v)) return nullptr;  // unbounded on this side
  return number(v);
}

nlohmann::ordered_json interval_json(const Interval& v) {
  return nlohmann::ordered_json::array({end_json(v.lo), end_json(v.hi)});
}

int run_analyze(const AnalyzeArgs& args) {
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  auto params = parse_assignments(args.assignments.params, "--param");
  if (!params) {
    report(params.error());
    return kUsage;
  }
  AnalyzeOptions options;
  options.params = std::move(*params);
  options.free_parameters = args.free_parameters;
  const ProgramSession session(std::move(loaded->program));
  const Program& p = session.program();
  auto a = session.analyze(options);
  if (!a) {
    report(a.error());
    return kRejected;
  }
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const Node& n : p.nodes) {
    nlohmann::ordered_json j;
    j["id"] = n.id;
    j["op"] = std::string(op_name(n.op));
    j["interval"] = interval_json(a->intervals[static_cast<std::size_t>(n.id)]);
    nodes.push_back(std::move(j));
  }
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
  for (const auto& [name, id] : p.outputs) json_append(outputs, name, interval_json(a->intervals[static_cast<std::size_t>(id)]));
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const AnalysisWarning& w : a->warnings) {
    nlohmann::ordered_json j;
    j["node"] = w.node;
    j["message"] = w.message;
    warnings.push_back(std::move(j));
  }
  nlohmann::ordered_json out;
  out["nodes"] = std::move(nodes);
  out["outputs"] = std::move(outputs);
  out["warnings"] = std::move(warnings);
  print_json(out);
  // Intervals over-approximate, so a warning may be a false alarm; a proof
  // settles it, where the solvers can take the program.
  if (!a->warnings.empty() && prove::encodable(p))
    std::fprintf(stderr,
                 "hint: the intervals cannot tell whether %zu warning(s) can really happen; `tensorcode prove %s` "
                 "(with the same compile flags) proves that no input makes the program fail, or prints one that "
                 "does\n",
                 a->warnings.size(), args.program.path.c_str());
  return kOk;
}

CommandRegistration reg{
    "analyze",
    "Interval of every node from the input domains, and warnings about operations that may fail (a diagnostic, not a proof)",
    [](CLI::App& sub) {
      auto args = std::make_shared<AnalyzeArgs>();
      add_program_options(sub, args->program);
      add_assignment_options(sub, args->assignments, kParams,
                             "NAME=VALUE: assume this parameter value instead of the stored one (repeatable)");
      sub.add_flag("--free-parameters", args->free_parameters, "treat every parameter as unbounded instead of its value");
      return [args] { return run_analyze(*args); };
    }};

}  // namespace
}  // namespace tc::cli
