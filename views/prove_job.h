#pragma once
// The Verify dock's Prove: the open source's circuit proved unable to fail,
// or equivalent to a reference file's function, over the whole input domain
// (core/prove, docs/verification.md). Runs on the engine worker; the IDE
// only shows the verdict and turns a counterexample into an input case.
#include <atomic>
#include <optional>
#include <string>

#include "base/progress.h"
#include "base/result.h"
#include "ir/domain.h"
#include "prove/prove.h"
#include "views/engine.h"

namespace tc {
namespace views {

struct ProveSettings {
  std::string reference_path;      ///< a Python file to prove equivalence with; empty: prove "cannot fail"
  std::string reference_function;  ///< its function (empty: the one named like the program's, else its first)
  double atol = 0.0;
  double rtol = 0.0;
  Dtype dtype = Dtype::Float64;  ///< both circuits' dtype
  double timeout_s = 60.0;       ///< per solver
};

struct ProveOutcome {
  std::optional<Diagnostic> error;  ///< refused: no circuit, a reference that does not compile, an op without an encoding
  prove::ProveResult result;
  std::string against;  ///< the reference's file name; empty for "cannot fail"
  Case inputs;          ///< the counterexample's inputs (empty without one)
  std::string circuit, reference, difference;  ///< its outcomes as the mismatch list shows them
};

/// Compiles `source` (its directives; `dtype` over them) and the reference
/// with the circuit's input domains, then proves. `cancel` stops the
/// solvers (the verdict is then unknown, reason "cancelled"); `progress`
/// gets the phases ("sweep", "z3", "cvc5").
ProveOutcome prove_source(const std::string& source, const std::string& filename, const std::string& function,
                          const ProveSettings& settings, const std::atomic<bool>* cancel, Progress* progress);

}  // namespace views
}  // namespace tc
