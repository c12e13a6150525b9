// The session's native tools (workbench.h).
#include "workbench/workbench.h"

#include "base/atomic_file.h"

namespace tc::workbench {

Result<std::unique_ptr<Reference>> python_reference(const SourceReference& spec) {
  PythonReferenceOptions ro;
  ro.max_seconds_per_case = spec.max_seconds_per_case;
  ro.max_memory_bytes = spec.max_memory_bytes;
  if (spec.reference_path.empty()) {
    if (spec.source.empty()) return make_error("the program has no source to verify against: give a reference file");
    ro.source = spec.source;
    ro.filename = spec.filename;
    ro.function = spec.function;
  } else {
    auto text = read_file(spec.reference_path, spec.max_file_bytes);
    if (!text) return text.error();
    ro.source = std::move(*text);
    ro.filename = spec.reference_path;
    ro.function = spec.reference_function;
    // A reference module with several functions: the one named as the program's.
    ro.preferred_function = spec.function;
  }
  auto reference = make_python_reference(ro);
  if (!reference) {
    Diagnostic d = reference.error();
    if (d.file.empty()) d.file = ro.filename;
    return d;
  }
  return std::move(*reference);
}

Result<VerifyReport> verify(const ProgramSession& session, Reference& reference, VerifyOptions options) {
  if (!options.eval.bindings) options.eval.bindings = session.bindings();
  return tc::verify(session.program(), reference, options);
}

Result<ReplacementVerdict> verified_replacement(const ProgramSession& original, const ProgramSession& candidate,
                                                ReplacementOptions options) {
  if (!options.original_eval.bindings) options.original_eval.bindings = original.bindings();
  return tc::verified_replacement(original.program(), candidate.program(), options);
}

Result<prove::ProveResult> prove(const ProgramSession& a, const ProgramSession* b, const prove::ProveOptions& options) {
  return prove::prove(a.program(), b ? &b->program() : nullptr, options);
}

Result<prove::ProvedReplacement> proved_replacement(const ProgramSession& original, const ProgramSession& candidate,
                                                    const prove::ProveOptions& options) {
  return prove::proved_replacement(original.program(), candidate.program(), options);
}

Result<Diff> diff(const ProgramSession& before, const ProgramSession& after, const DiffOptions& options) {
  return diff_programs(before.program(), after.program(), options);
}

}  // namespace tc::workbench
