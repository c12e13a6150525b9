// Artifact loading against the number of named items (issue 13, defect 5:
// it was quadratic; 100,000 outputs took 48 s). Loads artifacts with N and
// 10 N outputs (and inputs), median of interleaved rounds, and prints the
// time ratio: about 10 when loading is linear, about 100 when quadratic.
//
// usage: tc_load_bench [--items N] [--rounds R]   (default N = 10000, R = 5)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ir/artifact.h"

namespace {

std::string wide_artifact(int outputs, int inputs) {
  std::string t =
      "{\"format\":\"tensorcode.program\",\"version\":1,\"semantics\":\"exact\",\"dtype\":\"float64\","
      "\"surrogate\":\"sigmoid\",\"temperature\":1.0,\"nodes\":[";
  for (int k = 0; k < inputs; ++k)
    t += (k ? ",{\"id\":" : "{\"id\":") + std::to_string(k) +
         ",\"op\":\"input\",\"args\":[],\"shape\":[],\"domain\":{\"type\":\"float64\"},\"differentiable\":true,"
         "\"location\":null,"
         "\"name\":\"x" + std::to_string(k) + "\"}";
  t += "],\"updates\":{},\"outputs\":{";
  for (int k = 0; k < outputs; ++k) t += (k ? ",\"o" : "\"o") + std::to_string(k) + "\":" + std::to_string(k % inputs);
  return t + "}}";
}

double seconds_to_load(const std::string& text) {
  const auto t0 = std::chrono::steady_clock::now();
  auto p = tc::load_artifact(text);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!p.ok()) {
    std::fprintf(stderr, "load failed: %s\n", p.error().message.c_str());
    std::exit(1);
  }
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int n = 10000, rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--items")) n = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
  }
  struct Shape {
    const char* what;
    int outputs, inputs;
  };
  for (const Shape& shape : {Shape{"outputs", 1, 1}, Shape{"inputs", 0, 1}}) {
    const bool by_outputs = shape.what[0] == 'o';
    const std::string small = by_outputs ? wide_artifact(n, 1) : wide_artifact(1, n);
    const std::string large = by_outputs ? wide_artifact(10 * n, 1) : wide_artifact(1, 10 * n);
    std::vector<double> a, b;
    for (int r = 0; r < rounds; ++r) {
      a.push_back(seconds_to_load(small));
      b.push_back(seconds_to_load(large));
    }
    std::printf("%s: %d in %.4f s, %d in %.4f s (medians of %d); ratio %.1f (linear: 10, quadratic: 100)\n",
                shape.what, n, median(a), 10 * n, median(b), rounds, median(b) / median(a));
  }
}
