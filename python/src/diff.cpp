// tensorcode.program.diff's core: two Programs diffed by core/diff, returned
// as the tensorcode.diff document (a dict) and its text form, both made by
// core (diff/diff_report.h) so the package prints what the CLI prints.
#include <algorithm>

#include "workbench/workbench.h"
#include "diff/diff_report.h"
#include "program.h"

namespace tcpy {

namespace {

/// A sequence of {input: number} mappings as the diff's case columns.
tc::DiffCases cases_from(py::handle cases) {
  tc::DiffCases out;
  if (!py::isinstance<py::sequence>(cases) || py::isinstance<py::str>(cases))
    throw py::type_error(std::string("cases must be a list of {input: value} dicts, not ") + Py_TYPE(cases.ptr())->tp_name);
  std::vector<std::pair<std::string, double>> values;
  std::size_t index = 0;
  for (py::handle item : py::reinterpret_borrow<py::sequence>(cases)) {
    if (!PyDict_Check(item.ptr()))
      throw py::type_error("case " + std::to_string(index) + " must be a dict of input values, not " +
                           Py_TYPE(item.ptr())->tp_name);
    values.clear();
    std::map<std::string, double, std::less<>> named;
    fill_named(item, named, "input");
    for (auto& [name, v] : named) values.emplace_back(name, v);
    if (tc::Status s = tc::add_diff_case(out, values); !s)
      throw py::value_error("case " + std::to_string(index) + ": " + s.error().message);
    ++index;
  }
  if (out.count == 0) throw py::value_error("cases is empty: give at least one case, or None to compare structure only");
  return out;
}

/// The names diff_programs checks, checked here so that a ValueError names
/// the case (docs/diff.md); every case has the first case's names, so the
/// first one that is wrong is case 0's.
void check_case_names(const tc::DiffCases& cases, const tc::Program& a, const tc::Program& b) {
  for (const std::string& name : cases.names)
    if (!a.find_named(tc::Op::Input, name) && !b.find_named(tc::Op::Input, name))
      throw py::value_error("case 0: input '" + tc::quote_user(name) + "' is an input of neither program");
  for (auto [p, side] : {std::pair{&a, "a"}, std::pair{&b, "b"}})
    for (const tc::Node& n : p->nodes)
      if (n.op == tc::Op::Input && std::find(cases.names.begin(), cases.names.end(), n.name) == cases.names.end())
        throw py::value_error("case 0: the case gives no value for input '" + tc::quote_user(n.name) +
                              "' of program " + side + " (every input of either program needs one)");
}

}  // namespace

void bind_diff(py::module_& m) {
  m.def(
      "diff",
      [](py::handle a, py::handle b, py::handle cases, std::size_t max_examples, const std::string& a_label,
         const std::string& b_label, std::size_t limit) {
        const tc::ProgramSession& sa = core_program(a).session();
        const tc::ProgramSession& sb = core_program(b).session();
        const tc::Program& pa = sa.program();
        const tc::Program& pb = sb.program();
        std::optional<tc::DiffCases> columns;
        if (!cases.is_none()) {
          columns = cases_from(cases);
          check_case_names(*columns, pa, pb);
        }
        tc::DiffOptions o;
        o.cases = columns ? &*columns : nullptr;
        o.max_examples = max_examples;
        auto d = tc::workbench::diff(sa, sb, o);
        if (!d) raise_diagnostic(ErrorKind::Evaluation, d.error());
        tc::DiffTextOptions text;
        text.a_label = a_label;
        text.b_label = b_label;
        text.limit = limit;
        return py::make_tuple(json_to_py(tc::diff_to_json(*d, pa, pb)), to_str(tc::diff_to_text(*d, pa, pb, text)));
      },
      py::arg("a"), py::arg("b"), py::arg("cases"), py::arg("max_examples"), py::arg("a_label"), py::arg("b_label"),
      py::arg("limit"));
}

}  // namespace tcpy
