// Writes the ONNX export checks' fixtures: for every program (the corpus
// in float64 and float32, 200 random float64 programs, 50 random float32
// ones) the emitted model, its cases and the CPU evaluator's results, read
// by tests/emit/onnx_check_models.py (the ONNX checker) and
// tests/node/check_onnx.mjs (ONNX Runtime).
//
// usage: tc_onnx_fixtures DIR
// DIR/manifest.json lists the programs; DIR/pI.onnx is program I's model and
// DIR/pI.bin holds float64 values: the inputs [input][case], the CPU outputs
// [output][case] (NaN where the case failed) and the CPU's failing node per
// case (-1 where it succeeded).
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "emit/export_programs.h"
#include "emit/onnx_emitter.h"

using namespace tc;

namespace {

/// Per output: exact, sigmoid (a sigmoid node), derived (depends on a
/// sigmoid's value) or skip (a decision depends on one): docs/backends.md.
std::string output_class(const Program& p, const testgen::SigmoidDependence& dep, NodeId id) {
  const auto i = static_cast<std::size_t>(id);
  if (p.nodes[i].op == Op::Sigmoid) return "sigmoid";
  if (dep.decision[i]) return "skip";
  return dep.value[i] ? "derived" : "exact";
}

/// Whether a check (a failure condition) depends on a sigmoid's value:
/// then failures may differ within the sigmoid tolerance.
bool checks_depend_on_sigmoid(const codegen::CheckedPlan& plan, const testgen::SigmoidDependence& dep) {
  for (std::size_t i = 0; i < plan.program.nodes.size(); ++i) {
    if (!plan.needed[i]) continue;
    if (dep.decision[i]) return true;
    if (plan.own_check[i])
      for (NodeId a : plan.program.nodes[i].args)
        if (dep.value[static_cast<std::size_t>(a)]) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tc_onnx_fixtures DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::vector<testgen::ExportCheck> all = testgen::corpus_checks(Dtype::Float64);
  for (auto&& group : {testgen::corpus_checks(Dtype::Float32), testgen::random_checks(Dtype::Float64, 200, 1),
                       testgen::random_checks(Dtype::Float32, 50, 5001)})
    all.insert(all.end(), group.begin(), group.end());
  nlohmann::json manifest = {{"programs", nlohmann::json::array()}, {"refused", nlohmann::json::array()}};
  int index = 0;
  for (const auto& c : all) {
    if (!c.error.empty()) {
      std::fprintf(stderr, "%s: the cpu evaluator refused: %s\n", c.name.c_str(), c.error.c_str());
      return 1;
    }
    auto plan = codegen::make_checked_plan(c.program, "onnx");
    auto model = plan.ok() ? emit::emit_onnx(*plan) : Result<std::vector<std::uint8_t>>(plan.error());
    if (!model.ok()) {
      manifest["refused"].push_back({{"name", c.name}, {"why", model.error().message}});
      continue;
    }
    const std::string stem = "p" + std::to_string(index++);
    std::vector<double> data;
    for (const auto& col : c.columns) data.insert(data.end(), col.begin(), col.end());
    for (const auto& col : c.cpu.outputs) data.insert(data.end(), col.begin(), col.end());
    for (std::int64_t n : c.cpu_node) data.push_back(static_cast<double>(n));
    if (!write_file_atomic((dir / (stem + ".onnx")).string(),
                           std::string_view(reinterpret_cast<const char*>(model->data()), model->size()))
             .ok() ||
        !write_file_atomic((dir / (stem + ".bin")).string(),
                           std::string_view(reinterpret_cast<const char*>(data.data()), data.size() * 8))
             .ok()) {
      std::fprintf(stderr, "cannot write the fixtures under %s\n", dir.c_str());
      return 1;
    }
    const auto dep = testgen::sigmoid_dependence(c.program);
    nlohmann::json outputs = nlohmann::json::array();
    for (const auto& [name, id] : c.program.outputs)
      outputs.push_back({{"name", name}, {"class", output_class(c.program, dep, id)}});
    nlohmann::json inputs = nlohmann::json::array();
    for (NodeId id : plan->inputs) inputs.push_back(c.program.nodes[static_cast<std::size_t>(id)].name);
    manifest["programs"].push_back({{"name", c.name},
                                    {"model", stem + ".onnx"},
                                    {"data", stem + ".bin"},
                                    {"dtype", c.program.dtype == Dtype::Float32 ? "float32" : "float64"},
                                    {"count", c.count},
                                    {"inputs", inputs},
                                    {"input_ids", plan->inputs},
                                    {"outputs", outputs},
                                    {"checks_depend_on_sigmoid", checks_depend_on_sigmoid(*plan, dep)}});
  }
  if (!write_file_atomic((dir / "manifest.json").string(), manifest.dump(1)).ok()) return 1;
  std::printf("%d onnx models with cases and cpu results under %s (%zu refused)\n", index, dir.c_str(),
              manifest["refused"].size());
  return 0;
}
