// `tensorcode info PROGRAM`: loads (and so validates) a program and
// summarises it: signature, outputs, state, node counts per op. With --ir it
// prints the IR listing and with --dot the Graphviz circuit instead: the same
// text the IDE's IR view and its .dot export show (core/ir/printer.h).
#include <cstdio>
#include <map>

#include "common.h"
#include "base/json_append.h"
#include "ir/printer.h"
#include "passes/schedule.h"

namespace tc::cli {
namespace {

nlohmann::ordered_json domain_json(const Domain& d) {
  nlohmann::ordered_json j;
  j["type"] = std::string(to_string(d.type));
  j["min"] = number(d.lo());
  j["max"] = number(d.hi());
  return j;
}

struct InfoArgs {
  ProgramArgs program;
  bool ir = false;
  bool dot = false;
};

int run_info(const InfoArgs& info) {
  const ProgramArgs& args = info.program;
  auto loaded = load_reported(args);
  if (!loaded) return kRejected;
  const Program& p = loaded->program;
  if (info.ir || info.dot) {
    auto sched = tc::schedule(p);
    if (!sched) {
      report(sched.error());
      return kRejected;
    }
    const std::string text = info.ir ? print_ir(p, sched->layer_of) : to_dot(p, sched->layer_of);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kOk;
  }
  nlohmann::ordered_json out;
  out["semantics"] = std::string(to_string(p.semantics));
  out["dtype"] = std::string(to_string(p.dtype));
  out["temperature"] = number(p.temperature);
  out["nodes"] = p.nodes.size();
  nlohmann::ordered_json inputs = nlohmann::ordered_json::object();
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  nlohmann::ordered_json state = nlohmann::ordered_json::object();
  std::map<std::string, std::size_t> ops;
  for (const Node& n : p.nodes) {
    ++ops[std::string(op_name(n.op))];
    if (n.op == Op::Input) json_append(inputs, n.name, domain_json(*n.domain));
    if (n.op == Op::Parameter) json_append(params, n.name, number(n.value));
    if (n.op == Op::State) {
      auto s = domain_json(*n.domain);
      s["initial"] = number(n.value);
      json_append(state, n.name, s);
    }
  }
  out["inputs"] = inputs;
  out["parameters"] = params;
  out["state"] = state;
  nlohmann::ordered_json outs = nlohmann::ordered_json::object();
  for (const auto& [name, id] : p.outputs) json_append(outs, name, id);
  out["outputs"] = outs;
  nlohmann::ordered_json opj = nlohmann::ordered_json::object();
  for (const auto& [name, count] : ops) opj[name] = count;
  out["ops"] = opj;
  print_json(out);
  return kOk;
}

CommandRegistration reg{"info", "Load and validate a program, then summarise its signature, outputs, state and ops",
                        [](CLI::App& sub) {
                          auto args = std::make_shared<InfoArgs>();
                          add_program_options(sub, args->program);
                          auto* ir = sub.add_flag("--ir", args->ir,
                                                  "print the IR listing (one line per node with its schedule layer and "
                                                  "source position, as the IDE's IR view) instead of the summary");
                          auto* dot = sub.add_flag("--dot", args->dot,
                                                   "print the circuit as Graphviz dot, one rank per schedule layer");
                          ir->excludes(dot);
                          return [args] { return run_info(*args); };
                        }};

}  // namespace
}  // namespace tc::cli
