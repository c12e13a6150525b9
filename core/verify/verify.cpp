#include "verify/verify.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <thread>

namespace tc {

namespace {

/// Outcomes of a circuit batch, outputs named as the program names them.
void circuit_outcomes(const Program& program, const BatchResult& batch, std::vector<Outcome>& out) {
  out.clear();
  out.resize(batch.count);
  std::size_t next_error = 0;
  for (std::size_t c = 0; c < batch.count; ++c) {
    Outcome& o = out[c];
    if (batch.failed[c]) {
      o.raised = true;
      while (next_error < batch.errors.size() && batch.errors[next_error].first < c) ++next_error;
      if (next_error < batch.errors.size() && batch.errors[next_error].first == c)
        o.error = batch.errors[next_error].second.message;
      else
        o.error = "the case failed";
      continue;
    }
    o.outputs.reserve(program.outputs.size());
    for (std::size_t k = 0; k < program.outputs.size(); ++k)
      o.outputs.emplace_back(program.outputs[k].first, batch.outputs[k][c]);
  }
}

Status run_circuit(const Evaluator& evaluator, const std::vector<std::vector<double>>& columns, std::size_t count,
                   const Env& fixed, BatchResult& batch, std::vector<Outcome>& out, unsigned threads = 1) {
  std::vector<std::span<const double>> spans;
  spans.reserve(columns.size());
  for (const auto& c : columns) spans.emplace_back(c.data(), count);
  if (Status s = evaluator.run_batch(spans, count, fixed, batch, threads); !s) return s;
  circuit_outcomes(evaluator.program(), batch, out);
  return ok_status();
}

class ProgramReference final : public Reference {
 public:
  ProgramReference(Evaluator evaluator, Env fixed) : evaluator_(std::move(evaluator)), fixed_(std::move(fixed)) {}

  std::string describe() const override { return "the original circuit"; }

  Status bind(const std::vector<CaseInput>& inputs) override {
    auto mine = program_inputs(evaluator_.program());
    std::vector<std::string> a, b;
    for (const auto& in : inputs) a.push_back(in.name);
    for (const auto& in : mine) b.push_back(in.name);
    if (a != b) return make_error("the reference circuit's inputs differ from the program's");
    return ok_status();
  }

  Status evaluate(const std::vector<std::vector<double>>& columns, std::size_t count, std::vector<Outcome>& out,
                  Progress*) override {
    std::vector<Outcome> block;
    if (Status s = run_circuit(evaluator_, columns, count, fixed_, batch_, block); !s) return s;
    for (auto& o : block) out.push_back(std::move(o));
    return ok_status();
  }

 private:
  Evaluator evaluator_;
  Env fixed_;
  BatchResult batch_;
};

class FunctionReference final : public Reference {
 public:
  FunctionReference(ReferenceFunction f, std::string description)
      : f_(std::move(f)), description_(std::move(description)) {}
  std::string describe() const override { return description_; }
  Status bind(const std::vector<CaseInput>&) override { return ok_status(); }
  Status evaluate(const std::vector<std::vector<double>>& columns, std::size_t count, std::vector<Outcome>& out,
                  Progress*) override {
    std::vector<double> values(columns.size());
    for (std::size_t c = 0; c < count; ++c) {
      for (std::size_t k = 0; k < columns.size(); ++k) values[k] = columns[k][c];
      out.push_back(f_(values));
    }
    return ok_status();
  }

 private:
  ReferenceFunction f_;
  std::string description_;
};

std::string input_list(const std::vector<CaseInput>& inputs) {
  std::string s;
  for (const auto& in : inputs) s += (s.empty() ? "" : ", ") + in.name + " (" + in.domain.to_string() + ")";
  return s;
}

nlohmann::ordered_json json_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 9007199254740992.0)
    return static_cast<std::int64_t>(v);
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");  // JSON has no such numbers
  return v;
}

}  // namespace

Result<std::unique_ptr<Reference>> make_program_reference(const Program& program, EvalOptions options, Env fixed) {
  auto evaluator = Evaluator::create(program, options);
  if (!evaluator) return evaluator.error();
  return std::unique_ptr<Reference>(new ProgramReference(std::move(*evaluator), std::move(fixed)));
}

std::unique_ptr<Reference> make_function_reference(ReferenceFunction function, std::string description) {
  return std::make_unique<FunctionReference>(std::move(function), std::move(description));
}

Result<CaseSet> plan_verify_cases(const Program& program, const VerifyOptions& options) {
  std::vector<CaseInput> inputs = program_inputs(program);
  if (options.require_exhaustive && !enumerable_count(inputs, options.max_cases)) {
    return make_error("the inputs " + input_list(inputs) + " cannot be enumerated exhaustively within " +
                      std::to_string(options.max_cases) + " cases (only finite int32/bool domains can)");
  }
  if (options.cases && options.cases->inputs() != inputs)
    return make_error("the supplied cases were read for other inputs than the program's");
  CasePlanOptions plan;
  plan.max_cases = options.max_cases;
  plan.samples = options.samples;
  plan.seed = options.seed;
  plan.supplied = options.cases ? &*options.cases : nullptr;
  return plan_cases(inputs, plan);
}

Result<VerifyReport> verify(const Program& program, Reference& reference, const VerifyOptions& options) {
  if (Status s = check_tolerance(options.tolerance); !s) return s.error();
  auto cases = plan_verify_cases(program, options);
  if (!cases) return cases.error();
  return verify_planned(program, reference, options, *cases);
}

Result<VerifyReport> verify_planned(const Program& program, Reference& reference, const VerifyOptions& options,
                                    const CaseSet& planned) {
  if (Status s = check_tolerance(options.tolerance); !s) return s.error();
  if (planned.inputs() != program_inputs(program))
    return make_error("the planned cases were made for other inputs than the program's");
  const CaseSet* cases = &planned;
  const std::vector<CaseInput>& inputs = cases->inputs();

  auto evaluator = Evaluator::create(program, options.eval);
  if (!evaluator) return evaluator.error();

  if (cases->size() == 0) return make_error("there is no case to verify (the supplied cases file is empty)");
  const std::size_t first = std::min(options.first_case, cases->size());
  const std::size_t end = std::clamp(options.end_case, first, cases->size());

  // One worker per core by default, but no more than the cases can use: a
  // worker process costs a start-up (tens of milliseconds), worth paying only
  // for a few thousand cases. An explicit count is taken as given.
  constexpr std::size_t kCasesPerAutoWorker = 4096;
  std::size_t workers = options.threads;
  if (workers == 0) {
    workers = std::max(1u, std::thread::hardware_concurrency());
    workers = std::min(workers, std::max<std::size_t>(1, (end - first + kCasesPerAutoWorker - 1) / kCasesPerAutoWorker));
  }
  if (Status s = reference.set_workers(workers); !s) return s.error();
  if (Status s = reference.bind(inputs); !s) return s.error();

  VerifyReport report;
  report.planned_cases = cases->size();
  const std::size_t block = std::max<std::size_t>(options.block, 1) * std::max<std::size_t>(reference.workers(), 1);
  std::vector<std::vector<double>> columns;
  BatchResult batch;
  std::vector<Outcome> circuit, expected;
  Progress* progress = options.progress;
  const std::size_t total = end - first;
  if (progress) progress->update(0, total, "cases");
  std::size_t ran = 0;
  for (std::size_t begin = first; begin < end; begin += block) {
    if (progress && progress->cancelled()) return make_error("cancelled");
    std::size_t n = std::min(block, end - begin);
    cases->fill(begin, n, columns);
    if (Status s = run_circuit(*evaluator, columns, n, options.fixed, batch, circuit, options.threads); !s) return s.error();
    expected.clear();
    if (Status s = reference.evaluate(columns, n, expected, progress); !s) return s.error();
    if (expected.size() != n)
      return make_error(reference.describe() + " returned " + std::to_string(expected.size()) + " results for " +
                        std::to_string(n) + " cases");
    for (std::size_t c = 0; c < n; ++c) {
      Outcome ref = normalize_reference(std::move(expected[c]));
      if (outcomes_agree(circuit[c], ref, options.tolerance) && same_exception(circuit[c], ref)) continue;
      ++report.mismatch_count;
      if (report.mismatches.size() >= options.max_reported) continue;
      Mismatch m;
      m.index = begin + c;
      for (std::size_t k = 0; k < inputs.size(); ++k) m.inputs.emplace_back(inputs[k].name, columns[k][c]);
      m.circuit = std::move(circuit[c]);
      m.reference = std::move(ref);
      report.mismatches.push_back(std::move(m));
    }
    ran += n;
    if (progress) progress->update(ran, total, "cases");
  }
  report.cases = ran;
  // Exhaustive only when every case of the enumerated set really ran.
  report.exhaustive = cases->exhaustive() && ran == cases->size();
  report.passed = report.mismatch_count == 0;
  return report;
}

void merge_report(VerifyReport& into, VerifyReport next, std::size_t max_reported) {
  into.cases += next.cases;
  into.planned_cases = std::max(into.planned_cases, next.planned_cases);
  into.mismatch_count += next.mismatch_count;
  for (Mismatch& m : next.mismatches) {
    if (into.mismatches.size() >= max_reported) break;
    into.mismatches.push_back(std::move(m));
  }
  into.passed = into.mismatch_count == 0;
}

nlohmann::ordered_json outcome_to_json(const Outcome& outcome) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (outcome.raised) {
    j["error"] = outcome.error;
    return j;
  }
  for (const auto& [name, value] : outcome.outputs) j[name] = json_number(value);
  return j;
}

nlohmann::ordered_json report_to_json(const VerifyReport& report) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["cases"] = report.cases;
  j["exhaustive"] = report.exhaustive;
  j["passed"] = report.passed;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Mismatch& m : report.mismatches) {
    nlohmann::ordered_json e = nlohmann::ordered_json::object();
    nlohmann::ordered_json in = nlohmann::ordered_json::object();
    for (const auto& [name, value] : m.inputs) in[name] = json_number(value);
    e["inputs"] = std::move(in);
    e["circuit"] = outcome_to_json(m.circuit);
    e["reference"] = outcome_to_json(m.reference);
    list.push_back(std::move(e));
  }
  j["mismatches"] = std::move(list);
  return j;
}

}  // namespace tc
