// `tensorcode schedule PROGRAM`: the program's dependency layers.
#include "common.h"
#include "passes/schedule.h"

namespace tc::cli {
namespace {

int run_schedule(const ProgramArgs& args) {
  auto loaded = load_reported(args);
  if (!loaded) return kRejected;
  auto s = schedule(loaded->program);
  if (!s) {
    report(s.error());
    return kRejected;
  }
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& layer : s->layers) layers.push_back(layer);
  nlohmann::ordered_json out;
  out["layers"] = layers;
  print_json(out);
  return kOk;
}

CommandRegistration reg{"schedule",
                        "Print the dependency layers: leaves in layer 0, every other node one above its deepest argument",
                        [](CLI::App& sub) {
                          auto args = std::make_shared<ProgramArgs>();
                          add_program_options(sub, *args);
                          return [args] { return run_schedule(*args); };
                        }};

}  // namespace
}  // namespace tc::cli
