// The batched reverse pass for Python (core/grad/batch_gradients.h):
// Program.gradients_batch and the torch bridge's batched forward/backward.
//
// Columns are read in place when they are contiguous float64 (numpy arrays,
// or torch tensors through .numpy()); outputs and gradients are written
// straight into the numpy arrays returned. A forward that is to be
// differentiated returns a BatchRecord holding every case's value table,
// which the reverse pass reads: backward never runs the forward again.
#include <pybind11/numpy.h>

#include <limits>

#include "grad/batch_gradients.h"
#include "program.h"

namespace tcpy {

/// What the batched calls of one CoreProgram keep beside core's session:
/// each tape's input names as interned str (dict lookups without building
/// keys). The tapes themselves are the session's (ProgramSession::batch_tape).
class BatchBridge {
 public:
  /// The session's tape of `output` ("" = every output) and its input keys.
  std::shared_ptr<tc::BatchGradientTape> tape(CoreProgram& core, const std::string& output) {
    auto t = core.session().batch_tape(output);
    if (!t) raise_diagnostic(ErrorKind::Evaluation, t.error());
    std::vector<py::object>& k = keys_[output];
    if (k.empty())
      for (const std::string& n : (*t)->inputs()) {
        PyObject* key = to_str(n).release().ptr();
        PyUnicode_InternInPlace(&key);
        k.push_back(py::reinterpret_steal<py::object>(key));
      }
    return *t;
  }
  const std::vector<py::object>& keys(const std::string& output) { return keys_[output]; }

 private:
  std::map<std::string, std::vector<py::object>, std::less<>> keys_;
};

namespace {

using Column = py::array_t<double, py::array::c_style | py::array::forcecast>;

/// What a forward kept for backward, with the tape it belongs to.
struct PyBatchRecord {
  std::shared_ptr<tc::BatchGradientTape> tape;  ///< shared with the session: a record outlives its Program
  tc::BatchRecord record;
  bool has_calls = false;
  bool mask = false;
};

BatchBridge& bridge_of(CoreProgram& core) {
  if (!core.batch_bridge()) core.batch_bridge() = std::make_shared<BatchBridge>();
  return *core.batch_bridge();
}

bool mask_of(const std::string& errors) {
  if (errors != "raise" && errors != "nan") throw py::value_error("errors must be 'raise' or 'nan'");
  return errors == "nan";
}

unsigned checked_threads(const CoreProgram& core, long threads) {
  if (threads < 0) throw py::value_error("threads must be 0 (every core) or a positive count, not " + std::to_string(threads));
  // Bindings call back into Python, which only the thread holding the GIL may do.
  if (core.program().has_calls() && threads != 1)
    throw py::value_error("a program with call nodes runs its batch on one thread (its bindings need the GIL)");
  return static_cast<unsigned>(threads);
}

[[noreturn]] void raise_case(const tc::Diagnostic& d, std::size_t c, bool prefix) {
  tc::Diagnostic copy = d;
  if (prefix) copy.message = "case " + std::to_string(c) + ": " + d.message;
  try {
    raise_diagnostic(ErrorKind::Evaluation, copy);
  } catch (py::error_already_set& e) {
    e.value().attr("case") = c;
    throw;
  }
}

/// Runs `f` without the GIL when no binding can call back into Python.
template <class F>
tc::Status run_core(bool has_calls, F&& f) {
  if (has_calls) return f();
  py::gil_scoped_release release;
  return f();
}

/// Input columns in the tape's order: each a 1-d float64 array of `count`
/// values, or one value (a number or a 0-d / 1-element array) for every case.
struct Columns {
  std::vector<Column> arrays;
  std::vector<double> scalars;
  std::vector<std::uint8_t> is_array;  ///< a default array_t is an empty array, not a null one
  std::vector<std::span<const double>> spans;
  std::size_t count = 0;
};

Columns read_columns(const tc::BatchGradientTape& tape, const std::vector<py::object>& keys, py::handle columns,
                     long count_hint) {
  if (!PyDict_Check(columns.ptr()))
    throw py::type_error(std::string("columns must be a dict of input name to values, not ") +
                         Py_TYPE(columns.ptr())->tp_name);
  py::dict cols = py::reinterpret_borrow<py::dict>(columns);
  const std::vector<std::string>& names = tape.inputs();
  std::vector<PyObject*> found(names.size(), nullptr);
  bool exact = static_cast<std::size_t>(PyDict_GET_SIZE(cols.ptr())) == names.size();
  for (std::size_t k = 0; k < names.size() && exact; ++k) {
    found[k] = PyDict_GetItemWithError(cols.ptr(), keys[k].ptr());
    if (!found[k]) {
      if (PyErr_Occurred()) throw py::error_already_set();
      exact = false;
    }
  }
  if (!exact) {
    // Unknown names first, then missing ones: the per-case tape's order.
    for (auto [k, _] : cols) {
      std::string key = py::str(k);
      if (std::find(names.begin(), names.end(), key) == names.end())
        raise_error(ErrorKind::Evaluation, "unknown input '" + key + "'");
    }
    for (const std::string& n : names)
      if (!cols.contains(n)) raise_error(ErrorKind::Evaluation, "missing input '" + n + "'");
  }
  Columns c;
  c.scalars.resize(names.size());
  c.arrays.resize(names.size());
  c.is_array.assign(names.size(), 0);
  std::size_t count = count_hint >= 0 ? static_cast<std::size_t>(count_hint) : 0;
  bool sized = count_hint >= 0;
  std::string sized_by;
  for (std::size_t k = 0; k < names.size(); ++k) {
    py::handle v = found[k];
    if (PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr())) {
      c.scalars[k] = to_double(v.ptr(), "input", names[k]);
      continue;
    }
    Column a = Column::ensure(v);
    if (!a) {
      PyErr_Clear();
      throw py::type_error("input '" + names[k] + "' must be a number or a 1-d array of numbers, not " +
                           Py_TYPE(v.ptr())->tp_name);
    }
    if (a.ndim() > 1)
      throw py::value_error("input '" + names[k] + "' has " + std::to_string(a.ndim()) +
                            " dimensions: give one value per case (a 1-d column)");
    const std::size_t n = a.ndim() == 0 ? 1 : static_cast<std::size_t>(a.shape(0));
    if (a.ndim() == 1 && n != 1) {
      if (!sized) {
        count = n;
        sized = true;
        sized_by = names[k];
      } else if (n != count) {
        throw py::value_error("input '" + names[k] + "' has " + std::to_string(n) + " values, " +
                              (sized_by.empty() ? std::string("the batch has ") : "input '" + sized_by + "' has ") +
                              std::to_string(count));
      }
    }
    c.arrays[k] = std::move(a);
    c.is_array[k] = 1;
  }
  c.count = sized ? count : 1;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (c.is_array[k]) {
      const std::size_t n = static_cast<std::size_t>(c.arrays[k].size());
      c.spans.emplace_back(c.arrays[k].data(), n == 1 ? 1 : c.count);
    } else {
      c.spans.emplace_back(&c.scalars[k], 1);
    }
  }
  return c;
}

tc::Env fixed_env(py::handle params) {
  tc::Env env;
  if (!params.is_none()) fill_named(params, env.params, "parameter");
  return env;
}

/// (outputs as a (n_outputs, count) float64 array, record or None).
py::tuple batch_forward(CoreProgram& core, py::handle columns, py::handle params, long count, bool keep,
                        const std::string& errors, long threads, bool prefix_case) {
  clear_stashed_error();
  const bool mask = mask_of(errors);
  const unsigned nthreads = checked_threads(core, threads);
  BatchBridge& bridge = bridge_of(core);
  const std::shared_ptr<tc::BatchGradientTape> kept = bridge.tape(core, "");
  tc::BatchGradientTape& tape = *kept;
  Columns cols = read_columns(tape, bridge.keys(""), columns, count);
  tc::Env fixed = fixed_env(params);
  const std::size_t nout = tape.outputs().size();
  py::array_t<double> out({static_cast<py::ssize_t>(nout), static_cast<py::ssize_t>(cols.count)});
  std::span<double> out_span(out.mutable_data(), nout * cols.count);
  std::shared_ptr<PyBatchRecord> rec;
  if (keep) {
    rec = std::make_shared<PyBatchRecord>();
    rec->tape = kept;
    rec->has_calls = core.program().has_calls();
    rec->mask = mask;
  }
  tc::BatchGradOptions options{nthreads, mask};
  tc::BatchRecord* target = rec ? &rec->record : nullptr;
  tc::CaseErrors errs;
  tc::Status s = run_core(core.program().has_calls(),
                          [&] { return tape.forward(cols.spans, cols.count, fixed, out_span, target, options, &errs); });
  if (stashed_error_is_fatal()) raise_error(ErrorKind::Evaluation, "interrupted");
  if (!s) {
    if (!errs.empty()) raise_case(errs.front().second, errs.front().first, prefix_case);
    raise_diagnostic(ErrorKind::Evaluation, s.error());
  }
  return py::make_tuple(out, rec ? py::cast(rec) : py::object(py::none()));
}

/// ({input: per-case gradients, or their sum for the names in `summed`},
///  {parameter: gradient summed over the cases}).
py::tuple batch_reverse(PyBatchRecord& rec, py::handle seeds, py::handle summed, long threads, bool prefix_case) {
  clear_stashed_error();
  tc::BatchGradientTape& tape = *rec.tape;
  const std::size_t count = rec.record.count();
  const std::size_t nout = tape.outputs().size();
  if (threads < 0) throw py::value_error("threads must be 0 (every core) or a positive count");
  if (rec.has_calls && threads != 1)
    throw py::value_error("a program with call nodes runs its batch on one thread (its bindings need the GIL)");
  py::sequence seq = py::reinterpret_borrow<py::sequence>(seeds);
  if (seq.size() != nout) throw py::value_error("need one seed column per output (" + std::to_string(nout) + ")");
  std::vector<Column> arrays;
  std::vector<double> scalars(nout);
  std::vector<std::span<const double>> spans;
  for (std::size_t o = 0; o < nout; ++o) {
    py::object v = seq[o];
    if (v.is_none() || PyFloat_Check(v.ptr()) || PyLong_Check(v.ptr())) {
      scalars[o] = v.is_none() ? 0.0 : to_double(v.ptr(), "seed", tape.outputs()[o]);
      spans.emplace_back(&scalars[o], 1);
      continue;
    }
    if (py::array_t<double>::check_(v)) {
      // One value repeated (stride 0: torch's backward of sum() expands one
      // value to the batch): the seed every case shares, read in place.
      auto a = py::reinterpret_borrow<py::array>(v);
      const auto n = static_cast<std::size_t>(a.ndim() == 1 ? a.shape(0) : 0);
      if (a.ndim() == 1 && (n == count || n == 1) && a.strides(0) == 0) {
        scalars[o] = *static_cast<const double*>(a.data());
        spans.emplace_back(&scalars[o], 1);
        continue;
      }
    }
    Column a = Column::ensure(v);
    if (!a || a.ndim() > 1) {
      PyErr_Clear();
      throw py::type_error("the seed of output '" + tape.outputs()[o] + "' must be a number or a 1-d column");
    }
    spans.emplace_back(a.data(), static_cast<std::size_t>(a.size()));
    arrays.push_back(std::move(a));
  }
  const std::size_t nin = tape.input_leaf_count(), npar = tape.parameter_leaf_count();
  py::array_t<double> gin({static_cast<py::ssize_t>(nin), static_cast<py::ssize_t>(count)});
  std::vector<double> gpar(npar);
  std::span<double> gin_span(gin.mutable_data(), nin * count);
  tc::CaseErrors errors;
  tc::BatchGradOptions options{static_cast<unsigned>(threads), rec.mask};
  tc::Status s = run_core(rec.has_calls, [&] { return tape.reverse(rec.record, spans, gin_span, gpar, options, &errors); });
  if (stashed_error_is_fatal()) raise_error(ErrorKind::Evaluation, "interrupted");
  if (!s) {
    if (!errors.empty()) raise_case(errors.front().second, errors.front().first, prefix_case);
    raise_diagnostic(ErrorKind::Evaluation, s.error());
  }
  std::vector<std::string> sum_names;
  if (!summed.is_none())
    for (py::handle h : py::reinterpret_borrow<py::iterable>(summed)) sum_names.push_back(py::str(h));
  // Input gradients as views of gin's rows (no copy); parameter gradients
  // as 0-d arrays, which torch.from_numpy takes like the rows.
  py::dict gi, gp;
  std::size_t row = 0, prow = 0;
  const double* g = gin.data();
  const std::vector<py::ssize_t> no_shape;
  for (const tc::GradLeaf& leaf : tape.leaves()) {
    if (leaf.op == tc::Op::Input) {
      if (std::find(sum_names.begin(), sum_names.end(), leaf.name) != sum_names.end()) {
        double total = 0.0;  // case order, like the parameters
        for (std::size_t c = 0; c < count; ++c) total += g[row * count + c];
        gi[to_str(leaf.name)] = total;
      } else {
        gi[to_str(leaf.name)] = py::array_t<double>({static_cast<py::ssize_t>(count)},
                                                    {static_cast<py::ssize_t>(sizeof(double))}, g + row * count, gin);
      }
      ++row;
    } else {
      py::array_t<double> value(no_shape);
      *value.mutable_data() = gpar[prow++];
      gp[to_str(leaf.name)] = std::move(value);
    }
  }
  return py::make_tuple(gi, gp);
}

py::dict gradients_batch(CoreProgram& core, py::handle columns, const std::string& output, py::handle seeds,
                         py::handle params, const std::string& errors, long threads) {
  clear_stashed_error();
  const bool mask = mask_of(errors);
  const unsigned nthreads = checked_threads(core, threads);
  if (!core.program().output(output)) {
    std::string known;
    for (const auto& [n, _] : core.program().outputs) known += (known.empty() ? "" : ", ") + n;
    raise_error(ErrorKind::Evaluation, "the program has no output '" + output + "' (outputs: " + known + ")");
  }
  BatchBridge& bridge = bridge_of(core);
  const std::shared_ptr<tc::BatchGradientTape> kept = bridge.tape(core, output);
  tc::BatchGradientTape& tape = *kept;
  Columns cols = read_columns(tape, bridge.keys(output), columns, -1);
  tc::Env fixed = fixed_env(params);
  const std::size_t count = cols.count;
  py::array_t<double> value(static_cast<py::ssize_t>(count));
  std::span<double> value_span(value.mutable_data(), count);
  tc::BatchRecord record;
  tc::BatchGradOptions options{nthreads, mask};
  const bool calls = core.program().has_calls();
  double one = 1.0;
  Column seed_array;
  std::span<const double> seed(&one, 1);
  if (!seeds.is_none()) {
    seed_array = Column::ensure(seeds);
    if (!seed_array || seed_array.ndim() > 1 ||
        (static_cast<std::size_t>(seed_array.size()) != count && seed_array.size() != 1)) {
      PyErr_Clear();
      throw py::value_error("seeds must be a number or a 1-d column of " + std::to_string(count) + " values");
    }
    seed = std::span<const double>(seed_array.data(), static_cast<std::size_t>(seed_array.size()));
  }
  const std::size_t nin = tape.input_leaf_count(), npar = tape.parameter_leaf_count();
  py::array_t<double> gin({static_cast<py::ssize_t>(nin), static_cast<py::ssize_t>(count)});
  std::vector<double> gpar(npar);
  std::span<double> gin_span(gin.mutable_data(), nin * count);
  tc::CaseErrors errs;
  std::vector<std::span<const double>> seed_spans{seed};
  tc::Status s = run_core(calls, [&] {
    tc::Status f = tape.forward(cols.spans, count, fixed, value_span, &record, options);
    if (!f) return f;
    return tape.reverse(record, seed_spans, gin_span, gpar, options, &errs);
  });
  if (stashed_error_is_fatal()) raise_error(ErrorKind::Evaluation, "interrupted");
  if (!s) {
    if (!record.errors().empty()) raise_case(record.errors().front().second, record.errors().front().first, true);
    if (!errs.empty()) raise_case(errs.front().second, errs.front().first, true);
    raise_diagnostic(ErrorKind::Evaluation, s.error());
  }
  py::dict gi, gp;
  std::size_t row = 0, prow = 0;
  for (const tc::GradLeaf& leaf : tape.leaves()) {
    if (leaf.op == tc::Op::Input) gi[to_str(leaf.name)] = gin[py::make_tuple(static_cast<py::ssize_t>(row++), py::ellipsis())];
    else gp[to_str(leaf.name)] = gpar[prow++];
  }
  py::list failed;
  for (const auto& [c, _] : errs) failed.append(c);
  py::dict out;
  out["value"] = value;
  out["inputs"] = gi;
  out["parameters"] = gp;
  out["failed"] = failed;
  return out;
}

}  // namespace

void bind_batch(py::module_& m) {
  py::class_<PyBatchRecord, std::shared_ptr<PyBatchRecord>>(m, "BatchRecord")
      .def_property_readonly("count", [](py::handle self) { return checked<PyBatchRecord>(self).record.count(); })
      .def("reverse",
           [](py::handle self, py::handle seeds, py::handle summed, long threads, bool prefix_case) {
             return batch_reverse(checked<PyBatchRecord>(self), seeds, summed, threads, prefix_case);
           },
           py::arg("seeds"), py::arg("summed") = py::none(), py::arg("threads") = 1, py::arg("prefix_case") = true);
  auto cls = py::reinterpret_borrow<py::class_<CoreProgram, std::shared_ptr<CoreProgram>>>(m.attr("Program"));
  cls.def("batch_forward",
          [](py::handle self, py::handle columns, py::handle params, long count, bool keep, const std::string& errors,
             long threads, bool prefix_case) {
            return batch_forward(core_program(self), columns, params, count, keep, errors, threads, prefix_case);
          },
          py::arg("columns"), py::arg("params") = py::none(), py::arg("count") = -1, py::arg("keep") = true,
          py::arg("errors") = "raise", py::arg("threads") = 1, py::arg("prefix_case") = true);
  cls.def("gradients_batch",
          [](py::handle self, py::handle columns, const std::string& output, py::handle seeds, py::handle params,
             const std::string& errors, long threads) {
            return gradients_batch(core_program(self), columns, output, seeds, params, errors, threads);
          },
          py::arg("columns"), py::arg("output") = "result", py::arg("seeds") = py::none(),
          py::arg("params") = py::none(), py::arg("errors") = "raise", py::arg("threads") = 1);
}

}  // namespace tcpy
