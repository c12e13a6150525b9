// Program.fit: the CLI's `tensorcode fit` (core/grad/fit.h) from Python. The
// cases are read into the same FitCase records the CLI reads from JSON Lines
// and trained by the same tc::fit call, so the same data, optimizer, learning
// rate and steps give the same bits.
#include <pybind11/numpy.h>

#include <cmath>
#include <string>
#include <vector>

#include "grad/fit.h"
#include "program.h"

namespace tcpy {
namespace {

struct Target {
  std::string output, field;
};

/// One field's value as the CLI reads it: a number (bool as 0/1), finite.
double field_value(PyObject* v, std::size_t c, const std::string& field) {
  double x = to_double(v, "field", field);
  if (!std::isfinite(x))
    throw py::value_error("case " + std::to_string(c) + ": field '" + field + "' is not a finite number");
  return x;
}

/// Places one field of case `c` as the CLI does: into every target naming
/// it, and into the inputs when it names an input.
void place(const tc::Program& p, const std::vector<Target>& targets, tc::FitCase& fc, std::vector<bool>& have,
           std::size_t c, const std::string& field, double v) {
  bool used = false;
  for (std::size_t t = 0; t < targets.size(); ++t)
    if (targets[t].field == field) {
      fc.targets[t] = v;
      have[t] = true;
      used = true;
    }
  if (p.find_named(tc::Op::Input, field)) {
    fc.env.inputs[field] = v;
    used = true;
  }
  if (!used) throw py::value_error("case " + std::to_string(c) + ": field '" + field + "' is neither an input nor a target");
}

void check_complete(const tc::Program& p, const std::vector<Target>& targets, const tc::FitCase& fc,
                    const std::vector<bool>& have, std::size_t c) {
  for (std::size_t t = 0; t < targets.size(); ++t)
    if (!have[t]) throw py::value_error("case " + std::to_string(c) + ": missing target field '" + targets[t].field + "'");
  for (const tc::Node& n : p.nodes)
    if (n.op == tc::Op::Input && !fc.env.inputs.count(n.name))
      throw py::value_error("case " + std::to_string(c) + ": missing input '" + n.name + "'");
}

std::vector<tc::FitCase> read_cases(const tc::Program& p, const std::vector<Target>& targets, py::handle cases) {
  std::vector<tc::FitCase> out;
  auto fresh = [&] {
    tc::FitCase fc;
    fc.targets.assign(targets.size(), 0.0);
    return fc;
  };
  if (PyDict_Check(cases.ptr())) {
    // Columns: {field: 1-d sequence}, all of one length.
    std::vector<std::string> fields;
    std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>> cols;
    std::size_t count = 0;
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(cases)) {
      if (!PyUnicode_Check(k.ptr())) throw py::type_error("column names must be str");
      fields.push_back(k.cast<std::string>());
      auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(v);
      if (!a || a.ndim() != 1) throw py::type_error("column '" + fields.back() + "' must be a 1-d sequence of numbers");
      if (cols.empty()) count = static_cast<std::size_t>(a.shape(0));
      if (static_cast<std::size_t>(a.shape(0)) != count)
        throw py::value_error("column '" + fields.back() + "' has " + std::to_string(a.shape(0)) + " values, column '" +
                              fields[0] + "' has " + std::to_string(count));
      cols.push_back(std::move(a));
    }
    out.reserve(count);
    for (std::size_t c = 0; c < count; ++c) {
      tc::FitCase fc = fresh();
      std::vector<bool> have(targets.size(), false);
      for (std::size_t f = 0; f < fields.size(); ++f) {
        const double v = cols[f].data()[c];
        if (!std::isfinite(v))
          throw py::value_error("case " + std::to_string(c) + ": field '" + fields[f] + "' is not a finite number");
        place(p, targets, fc, have, c, fields[f], v);
      }
      check_complete(p, targets, fc, have, c);
      out.push_back(std::move(fc));
    }
    return out;
  }
  if (!PyList_Check(cases.ptr()) && !PyTuple_Check(cases.ptr()))
    throw py::type_error(std::string("cases must be a list of dicts or a dict of columns, not ") +
                         Py_TYPE(cases.ptr())->tp_name);
  py::sequence seq = py::reinterpret_borrow<py::sequence>(cases);
  out.reserve(seq.size());
  for (std::size_t c = 0; c < seq.size(); ++c) {
    py::object item = seq[c];
    if (!PyDict_Check(item.ptr())) throw py::type_error("case " + std::to_string(c) + " is not a dict");
    tc::FitCase fc = fresh();
    std::vector<bool> have(targets.size(), false);
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(item)) {
      if (!PyUnicode_Check(k.ptr())) throw py::type_error("case " + std::to_string(c) + ": field names must be str");
      const std::string field = k.cast<std::string>();
      place(p, targets, fc, have, c, field, field_value(v.ptr(), c, field));
    }
    check_complete(p, targets, fc, have, c);
    out.push_back(std::move(fc));
  }
  return out;
}

}  // namespace

void bind_fit(py::module_& m) {
  m.def(
      "fit",
      [](py::handle self_, py::handle cases, std::vector<std::pair<std::string, std::string>> target_pairs,
         const std::string& optimizer, double lr, std::size_t steps, unsigned threads, py::handle params) {
        CoreProgram& self = core_program(self_);
        clear_stashed_error();
        if (optimizer != "sgd" && optimizer != "adam")
          throw py::value_error("optimizer must be 'sgd' or 'adam', not '" + optimizer + "'");
        if (!(lr > 0) || !std::isfinite(lr)) throw py::value_error("lr must be finite and greater than 0");
        if (target_pairs.empty()) throw py::value_error("give at least one target: targets={\"OUTPUT\": \"FIELD\"}");
        tc::Program program = self.program();
        // `params` sets the starting values, which the trained program carries forward.
        if (!params.is_none()) {
          std::map<std::string, double, std::less<>> start;
          fill_named(params, start, "parameter");
          for (const auto& [name, v] : start) {
            auto id = program.find_named(tc::Op::Parameter, name);
            if (!id) throw py::key_error("the program has no parameter '" + name + "'");
            program.nodes[static_cast<std::size_t>(*id)].value = v;
          }
        }
        std::vector<Target> targets;
        for (auto& [o, f] : target_pairs) targets.push_back({o, f});
        std::vector<tc::FitCase> data = read_cases(program, targets, cases);
        if (data.empty()) throw py::value_error("fit() needs at least one case");
        tc::FitOptions options;
        for (const Target& t : targets) options.targets.push_back(t.output);
        options.optimizer = optimizer == "adam" ? tc::Optimizer::Adam : tc::Optimizer::Sgd;
        options.learning_rate = lr;
        options.steps = steps;
        options.grad.bindings = self.binding_map();
        // Bindings call back into Python, which needs the GIL and one thread.
        const bool calls = program.has_calls();
        if (calls && threads != 1)
          throw py::value_error("a program with call nodes trains on one thread (its bindings need the GIL)");
        options.threads = threads;
        std::size_t failed = data.size();
        tc::Result<tc::FitReport> r = tc::make_error("not run");
        if (calls) {
          r = tc::fit(program, data, options, &failed);
        } else {
          py::gil_scoped_release release;
          r = tc::fit(program, data, options, &failed);
        }
        if (!r) {
          if (failed < data.size()) {
            tc::Diagnostic d = r.error();
            d.message = "case " + std::to_string(failed) + ": " + d.message;
            try {
              raise_diagnostic(ErrorKind::Evaluation, d);
            } catch (py::error_already_set& e) {
              e.value().attr("case") = failed;
              throw;
            }
          }
          raise_diagnostic(ErrorKind::Evaluation, r.error());
        }
        py::dict report;
        report["steps"] = r->steps;
        report["optimizer"] = optimizer;
        report["initial_loss"] = r->initial_loss;
        report["final_loss"] = r->final_loss;
        py::dict trained;
        for (const auto& [name, v] : r->parameters) trained[to_str(name)] = v;
        report["parameters"] = trained;
        return py::make_tuple(std::make_shared<CoreProgram>(std::move(r->program), self.bindings()), report);
      },
      py::arg("program"), py::arg("cases"), py::arg("targets"), py::arg("optimizer"), py::arg("lr"),
      py::arg("steps"), py::arg("threads"), py::arg("params"));
}

}  // namespace tcpy
