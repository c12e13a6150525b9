// tensorcode.program.prove over core/prove (docs/verification.md, "Proofs").
// The proof runs on a thread of its own with the GIL released; this thread
// waits, taking the GIL every 50 ms to look for Ctrl-C (a notebook's
// "interrupt kernel"), which cancels the proof (core's ProveOptions::cancel
// stops Z3 and kills cvc5) before the KeyboardInterrupt is raised.
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>

#include "program.h"
#include "workbench/workbench.h"

namespace tcpy {
namespace {

/// Runs `solve` (which gets the cancel flag) on a thread of its own with
/// the GIL released; Ctrl-C raises the flag, and KeyboardInterrupt is
/// raised once the proof has stopped.
template <class Solve>
auto solve_released(Solve solve) {
  std::atomic<bool> cancel{false}, done{false};
  std::optional<decltype(solve(cancel))> result;
  std::unique_ptr<py::error_already_set> interrupted;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      result.emplace(solve(cancel));
      done = true;
    });
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (interrupted || done) continue;
      py::gil_scoped_acquire hold;
      if (PyErr_CheckSignals() != 0) {
        interrupted = std::make_unique<py::error_already_set>();
        cancel = true;
      }
    }
    worker.join();
  }
  if (interrupted) throw std::move(*interrupted);
  return std::move(*result);
}

tc::prove::ProveOptions options_of(double timeout, double atol, double rtol, py::handle cvc5) {
  if (!(timeout > 0) || !std::isfinite(timeout)) throw py::value_error("timeout must be a positive number of seconds");
  tc::prove::ProveOptions options;
  options.timeout_s = timeout;
  options.tolerance = {atol, rtol};
  if (tc::Status s = tc::check_tolerance(options.tolerance); !s) throw py::value_error(s.error().message);
  options.cvc5 = cvc5.is_none() ? std::string() : cvc5.cast<std::string>();
  return options;
}

py::object prove_programs(py::handle a, py::handle b, double timeout, double atol, double rtol, py::handle cvc5) {
  clear_stashed_error();
  const tc::ProgramSession& sa = core_program(a).session();
  const tc::ProgramSession* sb = b.is_none() ? nullptr : &core_program(b).session();
  tc::prove::ProveOptions options = options_of(timeout, atol, rtol, cvc5);
  auto r = solve_released([&](std::atomic<bool>& cancel) {
    tc::prove::ProveOptions o = options;
    o.cancel = &cancel;
    return tc::workbench::prove(sa, sb, o);
  });
  if (!r) raise_diagnostic(ErrorKind::Verification, r.error());
  return json_to_py(tc::prove::to_json(*r));
}

/// verified_replacement(prove=True): None when proved; otherwise
/// VerificationError with the reason, and the proof's document (when the
/// solvers ran) as its `report`.
py::object replace_proved(py::handle original, py::handle candidate, double timeout, double atol, double rtol,
                          py::handle cvc5) {
  clear_stashed_error();
  const tc::ProgramSession& so = core_program(original).session();
  const tc::ProgramSession& sc = core_program(candidate).session();
  tc::prove::ProveOptions options = options_of(timeout, atol, rtol, cvc5);
  auto v = solve_released([&](std::atomic<bool>& cancel) {
    tc::prove::ProveOptions o = options;
    o.cancel = &cancel;
    return tc::workbench::proved_replacement(so, sc, o);
  });
  if (!v) raise_diagnostic(ErrorKind::Verification, v.error());
  if (v->accepted) return py::none();
  py::object report = v->proof ? json_to_py(tc::prove::to_json(*v->proof)) : py::object(py::none());
  try {
    raise_error(ErrorKind::Verification, "replacement refused: " + v->reason);
  } catch (py::error_already_set& e) {
    e.value().attr("report") = report;
    throw;
  }
}

}  // namespace

void bind_prove(py::module_& m) {
  m.def("prove", &prove_programs, py::arg("a"), py::arg("b"), py::arg("timeout"), py::arg("atol"), py::arg("rtol"),
        py::arg("cvc5"));
  m.def("proved_replacement", &replace_proved, py::arg("original"), py::arg("candidate"), py::arg("timeout"),
        py::arg("atol"), py::arg("rtol"), py::arg("cvc5"));
}

}  // namespace tcpy
