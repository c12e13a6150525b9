#pragma once
// The programs and cases the C and ONNX export checks run, with the CPU
// evaluator's results (values, failed cases, failing nodes) to compare
// against: the frontend corpus in float64 and float32, and random programs
// of tests/emit/program_gen.h in float64 and float32. Cases include values
// outside the input domains, so input rejections are compared too.
#include <cstdint>
#include <string>
#include <vector>

#include "emit/program_gen.h"
#include "eval/evaluator.h"

namespace tc::testgen {

struct ExportCheck {
  std::string name;
  Program program;
  std::size_t count = 0;
  std::vector<std::vector<double>> columns;  ///< [input][case]
  BatchResult cpu;
  std::vector<std::int64_t> cpu_node;        ///< [case] failing node, -1 where the case succeeded
  std::string error;                         ///< why the CPU side could not run (empty: it ran)
};

inline ExportCheck cpu_reference(std::string name, Program p, std::size_t count, std::uint64_t seed) {
  ExportCheck c;
  c.name = std::move(name);
  c.program = std::move(p);
  c.count = count;
  c.columns = random_cases(c.program, count, seed, /*out_of_domain=*/true);
  auto ev = Evaluator::create(c.program);
  if (!ev.ok()) {
    c.error = ev.error().message;
    return c;
  }
  std::vector<std::span<const double>> cols(c.columns.begin(), c.columns.end());
  if (Status s = ev->run_batch(cols, count, Env{}, c.cpu); !s.ok()) {
    c.error = s.error().message;
    return c;
  }
  c.cpu_node.assign(count, -1);
  for (const auto& [k, d] : c.cpu.errors) c.cpu_node[k] = d.node ? static_cast<std::int64_t>(*d.node) : -2;
  return c;
}

/// Stateless, call-free, exact corpus programs in `dtype` (others are the
/// refusal tests' business).
inline std::vector<ExportCheck> corpus_checks(Dtype dtype, std::size_t count = 64) {
  std::vector<ExportCheck> out;
  std::uint64_t seed = 100;
  for (auto& e : load_corpus(std::string(TC_TEST_DATA) + "/corpus", dtype)) {
    if (!e.error.empty()) continue;  // e.g. integers beyond 2^24 in float32
    const Program& p = e.program;
    if (p.has_state() || p.has_calls() || p.semantics == Semantics::Relaxed || p.nodes_of(Op::Input).empty()) continue;
    out.push_back(cpu_reference(e.file + (dtype == Dtype::Float32 ? " (float32)" : " (float64)"), p, count, ++seed));
  }
  return out;
}

/// `n` random programs from `first_seed` on, in `dtype`: a third with
/// integer inputs (floordiv, mod, zero divisors), a third with sigmoid outputs.
inline std::vector<ExportCheck> random_checks(Dtype dtype, int n, std::uint64_t first_seed, std::size_t count = 64) {
  std::vector<ExportCheck> out;
  for (int k = 0; k < n; ++k) {
    GenOptions o;
    o.seed = first_seed + static_cast<std::uint64_t>(k);
    o.int_inputs = k % 3 == 1;
    o.sigmoid_outputs = k % 3 == 2;
    o.nodes = 30 + (k % 4) * 10;
    Program p = random_program(o);
    p.dtype = dtype;
    out.push_back(cpu_reference("random seed " + std::to_string(o.seed) +
                                    (dtype == Dtype::Float32 ? " (float32)" : " (float64)"),
                                std::move(p), count, o.seed * 7 + 1));
  }
  return out;
}

}  // namespace tc::testgen
