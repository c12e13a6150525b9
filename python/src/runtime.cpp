// tensorcode.program.Runtime's core side: transactional event state,
// snapshots and replay, all from core/runtime.
#include "ir/artifact.h"
#include "program.h"
#include "runtime/runtime.h"

namespace tcpy {

struct CoreRuntime {
  std::shared_ptr<HostBindings> bindings;  // outlives `runtime` (declared first)
  std::optional<tc::Runtime> runtime;
  bool dispatching = false;  ///< an event is running: a binding must not commit another one meanwhile
};

namespace {

/// Refuses a dispatch or replay started by a binding of the event being
/// dispatched: the commit of the outer event would otherwise be mixed with
/// the inner one.
class DispatchGuard {
 public:
  explicit DispatchGuard(CoreRuntime& c) : c_(c) {
    if (c_.dispatching)
      raise_error(ErrorKind::Evaluation, "this runtime is already dispatching an event (a binding called back into it)");
    c_.dispatching = true;
  }
  ~DispatchGuard() { c_.dispatching = false; }
  DispatchGuard(const DispatchGuard&) = delete;
  DispatchGuard& operator=(const DispatchGuard&) = delete;

 private:
  CoreRuntime& c_;
};

py::dict named(const tc::NamedValues& values) {
  py::dict d;
  for (const auto& [k, v] : values) d[to_str(k)] = v;
  return d;
}

tc::NamedValues values_from(py::handle mapping, const char* what) {
  tc::NamedValues v;
  fill_named(mapping, v, what);
  return v;
}

std::shared_ptr<HostBindings> bindings_for(const CoreProgram* p, py::handle spec) {
  if (!spec.is_none()) return make_bindings(spec);
  if (p && p->bindings()) return p->bindings();
  return nullptr;
}

/// The Python exception now set, for the malformed event `index`: the same
/// type, its message prefixed "event N: ", with .event and .records (what
/// committed before it) like a failing event's EvaluationError.
[[noreturn]] void throw_for_event(std::size_t index, const py::list& records) {
  py::error_already_set err;  // takes the exception that is set
  py::object type = err.type();
  py::object value = type(py::str("event {}: {}").format(index, py::str(err.value())));
  value.attr("event") = index;
  value.attr("records") = records;
  PyErr_SetObject(type.ptr(), value.ptr());
  throw py::error_already_set();
}

py::dict record(const tc::Runtime& rt, const tc::StepResult& r) {
  py::dict d;
  d["step"] = rt.steps();
  d["outputs"] = named(rt.named_outputs(r));
  d["state"] = named(rt.named_state(r.state));
  return d;
}

}  // namespace

void bind_runtime(py::module_& m) {
  py::class_<CoreRuntime>(m, "Runtime")
      .def(py::init([](py::handle program, std::uint64_t max_steps, py::handle bindings) {
             CoreProgram& p = core_program(program);
             auto c = std::make_unique<CoreRuntime>();
             c->bindings = bindings_for(&p, bindings);
             auto r = tc::Runtime::create(p.program(), max_steps, c->bindings ? &c->bindings->map : nullptr);
             if (!r) raise_diagnostic(ErrorKind::Evaluation, r.error());
             c->runtime.emplace(std::move(r.value()));
             return c;
           }),
           py::arg("program"), py::arg("max_steps"), py::arg("bindings") = py::none())
      .def_static("restore",
                  [](std::string_view text, py::handle bindings) {
                    auto c = std::make_unique<CoreRuntime>();
                    c->bindings = bindings_for(nullptr, bindings);
                    auto r = tc::Runtime::restore_text(text, c->bindings ? &c->bindings->map : nullptr);
                    if (!r) raise_diagnostic(ErrorKind::Artifact, r.error());
                    c->runtime.emplace(std::move(r.value()));
                    return c;
                  },
                  py::arg("text"), py::arg("bindings") = py::none())
      .def("dispatch",
           [](py::handle c_, py::handle inputs) {
             CoreRuntime& c = checked<CoreRuntime>(c_);
             clear_stashed_error();
             DispatchGuard guard(c);
             auto r = c.runtime->dispatch(values_from(inputs, "input"));
             if (!r) raise_diagnostic(ErrorKind::Evaluation, r.error());
             return named(c.runtime->named_outputs(*r));
           })
      .def("step",
           [](py::handle c_, py::handle inputs, py::handle state) {
             CoreRuntime& c = checked<CoreRuntime>(c_);
             clear_stashed_error();
             tc::NamedValues s = state.is_none() ? c.runtime->state_map() : values_from(state, "state");
             auto r = c.runtime->step(values_from(inputs, "input"), s);
             if (!r) raise_diagnostic(ErrorKind::Evaluation, r.error());
             return py::make_tuple(named(c.runtime->named_outputs(*r)), named(c.runtime->named_state(r->state)));
           })
      .def("replay",
           [](py::handle c_, py::handle events) {
             CoreRuntime& c = checked<CoreRuntime>(c_);
             clear_stashed_error();
             DispatchGuard guard(c);
             py::list records;
             std::size_t index = 0;
             for (py::handle e : py::reinterpret_borrow<py::iterable>(events)) {
               tc::NamedValues v;
               try {
                 v = values_from(e, "input");
               } catch (py::builtin_exception& bad) {
                 bad.set_error();
                 throw_for_event(index, records);
               } catch (py::error_already_set& bad) {
                 bad.restore();
                 throw_for_event(index, records);
               }
               auto r = c.runtime->dispatch(v);
               if (!r) {
                 tc::Diagnostic d = r.error();
                 d.message = "event " + std::to_string(index) + ": " + d.message;
                 try {
                   raise_diagnostic(ErrorKind::Evaluation, d);
                 } catch (py::error_already_set& err) {
                   err.value().attr("event") = index;
                   err.value().attr("records") = records;
                   throw;
                 }
               }
               records.append(record(*c.runtime, *r));
               ++index;
             }
             return records;
           })
      .def("snapshot", [](py::handle c_) {
             CoreRuntime& c = checked<CoreRuntime>(c_); return c.runtime->snapshot_text(); })
      .def_property_readonly("state", [](py::handle c_) {
             CoreRuntime& c = checked<CoreRuntime>(c_); return named(c.runtime->state_map()); })
      .def_property_readonly("steps", [](py::handle c_) {
             CoreRuntime& c = checked<CoreRuntime>(c_); return c.runtime->steps(); })
      .def_property_readonly("max_steps", [](py::handle c_) {
             CoreRuntime& c = checked<CoreRuntime>(c_); return c.runtime->max_steps(); })
      .def("program", [](py::handle c_) {
             CoreRuntime& c = checked<CoreRuntime>(c_);
        return std::make_shared<CoreProgram>(c.runtime->program(), c.bindings);
      })
      // Pickling goes through the snapshot (program, state, steps, budget);
      // host bindings are Python functions and never written.
      .def(py::pickle(
          [](py::handle c_) {
            CoreRuntime& c = checked<CoreRuntime>(c_);
            if (c.bindings && !c.bindings->map.empty())
              throw py::type_error(
                  "a runtime with host bindings cannot be pickled or copied (bindings are Python functions and are "
                  "never serialised): pickle its snapshot() and restore it with bindings=");
            return c.runtime->snapshot_text();
          },
          [](const std::string& text) {
            auto c = std::make_unique<CoreRuntime>();
            auto r = tc::Runtime::restore_text(text, nullptr);
            if (!r) raise_diagnostic(ErrorKind::Artifact, r.error());
            c->runtime.emplace(std::move(r.value()));
            return c;
          }));
}

}  // namespace tcpy
