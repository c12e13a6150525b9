#pragma once
/// The session's native tools: verify, prove and diff, each over a
/// ProgramSession, so the CLI, the Python package and the IDE reach them the
/// same way (the session's bindings serve the circuit's call nodes, the
/// session's program is the one checked). They live a layer above
/// core/session because the CPython reference starts processes and the
/// solvers are native: the WebAssembly build compiles the session without
/// them. Export by target name is in workbench/export.h (apart, because Qt
/// code includes this header and `emit` is a macro there).
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "diff/diff.h"
#include "frontend/compile.h"
#include "prove/prove.h"
#include "prove/replacement.h"
#include "session/program_session.h"
#include "verify/python_reference.h"
#include "verify/replacement.h"
#include "verify/verify.h"

namespace tc::workbench {

/// Where a Python reference comes from: the program's own source (the
/// function it was compiled from), or another file given by the user.
struct SourceReference {
  std::string source;    ///< the program's own source text (empty: it has none, e.g. an artifact)
  std::string filename;  ///< its file name, for diagnostics
  std::string function;  ///< the function the program was compiled from
  /// Another file to check against (empty: the program's own source), and
  /// the function of it to call (empty: its only one, or `function` when it
  /// has several).
  std::string reference_path;
  std::string reference_function;
  std::size_t max_file_bytes = kMaxSourceBytes;  ///< a larger reference file is refused, as a larger source is
  double max_seconds_per_case = 10.0;
  std::uint64_t max_memory_bytes = std::uint64_t(4) << 30;
};

/// The CPython reference a source program is checked against. Errors: no
/// source and no reference file ("... has no source to verify against"), an
/// unreadable or oversized reference file, a module that does not load or
/// has no such function (located in the reference's file).
Result<std::unique_ptr<Reference>> python_reference(const SourceReference& spec);

/// verify() of the session's program; the session's bindings serve its call
/// nodes unless options.eval names others.
Result<VerifyReport> verify(const ProgramSession& session, Reference& reference, VerifyOptions options = {});

/// verified_replacement() of two sessions; the original's bindings serve its
/// call nodes (a candidate with call nodes is refused by the gate).
Result<ReplacementVerdict> verified_replacement(const ProgramSession& original, const ProgramSession& candidate,
                                                ReplacementOptions options = {});

/// A proof that `a` cannot fail (b null) or that a and b are equivalent.
Result<prove::ProveResult> prove(const ProgramSession& a, const ProgramSession* b,
                                 const prove::ProveOptions& options = {});
/// The proving replacement gate (prove/replacement.h).
Result<prove::ProvedReplacement> proved_replacement(const ProgramSession& original, const ProgramSession& candidate,
                                                    const prove::ProveOptions& options = {});

/// The structural match of `before` and `after` and, with options.cases,
/// their outputs compared on those cases.
Result<Diff> diff(const ProgramSession& before, const ProgramSession& after, const DiffOptions& options = {});

}  // namespace tc::workbench
