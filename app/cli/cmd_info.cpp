// `tensorcode info PROGRAM`: loads (and so validates) a program and
// summarises it: signature, outputs, state, node counts per op.
#include <map>

#include "common.h"
#include "base/json_append.h"

namespace tc::cli {
namespace {

nlohmann::ordered_json domain_json(const Domain& d) {
  nlohmann::ordered_json j;
  j["type"] = std::string(to_string(d.type));
  j["min"] = number(d.lo());
  j["max"] = number(d.hi());
  return j;
}

int run_info(const ProgramArgs& args) {
  auto loaded = load_program(args);
  if (!loaded) {
    report(loaded.error());
    return kRejected;
  }
  report_warnings(loaded->warnings);
  const Program& p = loaded->program;
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
                          auto args = std::make_shared<ProgramArgs>();
                          add_program_options(sub, *args);
                          return [args] { return run_info(*args); };
                        }};

}  // namespace
}  // namespace tc::cli
