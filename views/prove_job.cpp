#include "views/prove_job.h"

#include <filesystem>

#include "frontend/compile.h"
#include "base/atomic_file.h"

namespace tc {
namespace views {

namespace {

/// The first error of a compile that gave no circuit.
Diagnostic first_error(const std::vector<Diagnostic>& diagnostics, const char* fallback) {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return d;
  return diagnostics.empty() ? make_error(fallback) : diagnostics.front();
}

/// The reference compiled for the circuit's inputs: the same names and
/// domains (the proof is over the circuit's domain), its own dtype
/// directive overridden by the one the dock sets.
Result<Program> compile_reference(const ProveSettings& s, const CompileResult& circuit) {
  auto text = read_file(s.reference_path);
  if (!text.ok()) return text.error();
  CompileOptions opts;
  opts.filename = s.reference_path;
  auto directives = parse_compile_directives(*text, s.reference_path);
  if (!directives.ok()) return directives.error();
  apply_compile_directives(*directives, opts);
  opts.dtype = s.dtype;
  opts.hints = HintSpelling::Ide;
  opts.function = s.reference_function.empty() ? circuit.function : s.reference_function;
  opts.first_function_by_default = s.reference_function.empty();
  for (const auto& in : circuit.inputs) opts.inputs.emplace_back(in.name, in.domain);
  auto out = compile_python(*text, opts);
  if (!out.ok()) {
    Diagnostic d = out.error();
    if (d.file.empty()) d.file = s.reference_path;
    return d;
  }
  return std::move(out->program);
}

/// Progress of the phases, for the dock's bar: the sweep fills the first
/// half, Z3 the next quarter, cvc5 the last one.
struct PhaseProgress {
  Progress* inner;
  void operator()(std::string_view phase, int done, int total) const {
    if (!inner || total <= 0) return;
    const double f = static_cast<double>(done) / total;
    const double at = phase == "sweep" ? 0.5 * f : phase == "z3" ? 0.5 + 0.25 * f : 0.75 + 0.25 * f;
    inner->update(static_cast<std::uint64_t>(1000 * at), 1000, phase);
  }
};

}  // namespace

ProveOutcome prove_source(const std::string& source, const std::string& filename, const std::string& function,
                          const ProveSettings& settings, const std::atomic<bool>* cancel, Progress* progress) {
  ProveOutcome o;
  if (Status s = check_tolerance({settings.atol, settings.rtol}); !s) {
    o.error = s.error();
    return o;
  }
  const CompileResult c = compile_source(source, filename, function, settings.dtype);
  if (!c.program) {
    o.error = first_error(c.diagnostics, "the source does not compile");
    return o;
  }
  std::optional<Program> reference;
  if (!settings.reference_path.empty()) {
    auto r = compile_reference(settings, c);
    if (!r.ok()) {
      o.error = r.error();
      return o;
    }
    reference = std::move(*r);
    o.against = std::filesystem::path(settings.reference_path).filename().string();
  }
  prove::ProveOptions po;
  po.timeout_s = settings.timeout_s;
  po.tolerance = {settings.atol, settings.rtol};
  po.cancel = cancel;
  po.progress = PhaseProgress{progress};
  auto r = prove::prove(*c.program, reference ? &*reference : nullptr, po);
  if (!r.ok()) {
    o.error = r.error();
    return o;
  }
  o.result = std::move(*r);
  if (const auto& ce = o.result.counterexample) {
    for (const auto& [name, v] : ce->inputs) o.inputs[name] = v;
    if (reference) {
      o.circuit = outcome_text(ce->a);
      o.reference = outcome_text(ce->b);
      o.difference = difference_text(ce->a, ce->b);
    } else {
      o.circuit = "error: " + ce->message;
      o.difference = ce->node ? "fails at node " + std::to_string(*ce->node) : std::string("fails");
    }
  }
  return o;
}

}  // namespace views
}  // namespace tc
