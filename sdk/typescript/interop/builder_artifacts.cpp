// The C++ Builder's side of the TypeScript interop tests: builds a fixed set
// of programs with tc::Builder and writes each as DIR/NAME.json. The TS
// tests build the same programs with their Builder (test/builder_programs.mjs)
// and require the same artifact bytes, then the same outputs and gradients.
//
// usage: tc_ts_builder_artifacts DIR
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/atomic_file.h"
#include "ir/artifact.h"
#include "ir/builder.h"

namespace tc {
namespace {

Result<Program> gated() {
  Builder b(Semantics::Hybrid, Surrogate::Sigmoid);
  Value x = b.input("x", Domain::float64());
  Value w = b.parameter("weight", 0.5);
  // One node per statement: the order of function arguments is unspecified.
  Value cond = x > 4;
  Value wx = w * x;
  return b.build(b.select(cond, wx, 0));
}

Result<Program> counter() {
  Builder b;
  Value event = b.input("event", Domain::int32(0, 1));
  Value count = b.state("count", 0, Domain::int32(0, 100));
  b.update(count, count + event);
  return b.build(count);
}

Result<Program> neuron() {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float64);
  Value x = b.input("x", Domain::float64(-10, 10));
  Value y = b.input("y", Domain::float64(-10, 10));
  Value w = b.parameter("w", 0.75);
  Value h = b.affine({x, y, w}, {1.5, -2.0, 0.25}, 0.125);
  Value s = b.sigmoid(h);
  Value r = b.relu(x - y);
  return b.build({{"s", s}, {"r", r}, {"mix", s * r + w}});
}

Result<Program> lookup() {
  Builder b;
  Value i = b.input("i", Domain::int32(0, 3));
  Value x = b.input("x", Domain::float64(-4, 4));
  Value g = b.gather({x, x * 2, x * x, 7}, i);
  std::vector<Value> hot = b.one_hot(i, 4);
  Value sel = b.gather_one_hot({hot[0], hot[1], hot[2], hot[3]}, {1, x, 3, b.op("neg", x)});
  Value sparse = b.sparse_affine({x, g, sel}, {0, 2}, {0.5, -1.0}, 2.0);
  return b.build({{"g", g}, {"sel", sel}, {"sparse", sparse}});
}

Result<Program> scan_sum() {
  Builder b;
  Value x = b.input("x", Domain::float64(-2, 2));
  Value k = b.parameter("k", 1.25);
  Value total = b.scan([](Builder& bb, Value carry, Value item) { return bb.op("add", carry, item) * 0.5; }, 0,
                       {x, k, x * k, 3});
  return b.build(b.op("div", total, b.op("add", k, 1)));
}

Result<Program> included() {
  Builder rules;
  Value a = rules.input("a");
  Value t = rules.parameter("threshold", 4);
  Result<Program> algorithm = rules.build(rules.select(a > t, 10, 12));
  if (!algorithm) return algorithm.error();
  Builder b;
  Value x = b.input("x");
  Value correction = b.parameter("correction", 0.25);
  auto region = b.include(*algorithm, {{"a", x}}, "algorithm");
  b.freeze({"algorithm.threshold"});
  return b.build(region["result"] + correction * x);
}

}  // namespace
}  // namespace tc

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tc_ts_builder_artifacts DIR\n");
    return 2;
  }
  const std::vector<std::pair<std::string, std::function<tc::Result<tc::Program>()>>> programs = {
      {"gated", tc::gated},   {"counter", tc::counter},   {"neuron", tc::neuron},
      {"lookup", tc::lookup}, {"scan_sum", tc::scan_sum}, {"included", tc::included}};
  for (const auto& [name, make] : programs) {
    auto p = make();
    if (!p) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), p.error().format().c_str());
      return 3;
    }
    if (auto s = tc::write_file_atomic(std::string(argv[1]) + "/" + name + ".json", tc::save_artifact(*p)); !s) {
      std::fprintf(stderr, "%s\n", s.error().format().c_str());
      return 3;
    }
  }
  return 0;
}
