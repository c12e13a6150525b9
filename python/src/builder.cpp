// tensorcode.program.Builder's core side: tc::Builder with symbolic values
// (Symbol) that overload arithmetic and ordered comparisons. A misuse is
// reported where it happens (CompileError), not only at build().
#include <pybind11/functional.h>

#include "ir/builder.h"
#include "options/binding_options.h"
#include "program.h"

namespace tcpy {
namespace {

struct CoreBuilder {
  std::unique_ptr<tc::Builder> b;
  bool built = false;
  int scanning = 0;  ///< scan() bodies running: build() must wait for them
};

/// A node of a builder under construction; keeps its builder alive.
struct Symbol {
  py::object owner;  // the Python _core.Builder
  tc::Value value;
};

/// The builder of a method call; after a successful build() its program
/// has moved out, so every further use is refused (never a dangling node).
CoreBuilder& cb(py::handle self) {
  CoreBuilder& c = checked<CoreBuilder>(self);
  if (c.built) raise_error(ErrorKind::Compile, "this builder has already built its program: start a new Builder");
  return c;
}

/// The node a symbol stands for, or nullptr once its builder has built.
const tc::Node* node_of(const Symbol& s) {
  const CoreBuilder& c = checked<CoreBuilder>(s.owner);
  if (c.built) return nullptr;
  const auto& nodes = c.b->peek().nodes;
  auto i = static_cast<std::size_t>(s.value.id());
  return i < nodes.size() ? &nodes[i] : nullptr;
}

void check(CoreBuilder& c) {
  if (c.b->error()) raise_diagnostic(ErrorKind::Compile, *c.b->error());
}

tc::Arg to_arg(py::handle owner, py::handle h) {
  if (py::isinstance<Symbol>(h)) {
    Symbol& s = checked<Symbol>(h);
    if (!s.owner.is(owner)) raise_error(ErrorKind::Compile, "a value from another builder was used");
    return tc::Arg(s.value);
  }
  if (PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr())) {
    return tc::Arg(to_double(h.ptr(), "argument", "value"));
  }
  throw py::type_error(std::string("expected a symbolic value or a number, not ") + Py_TYPE(h.ptr())->tp_name);
}

std::vector<tc::Arg> to_args(py::handle owner, py::handle seq) {
  if (PyUnicode_Check(seq.ptr()) || !PySequence_Check(seq.ptr()))
    throw py::type_error(std::string("expected a list of values, not ") + Py_TYPE(seq.ptr())->tp_name);
  std::vector<tc::Arg> out;
  for (py::handle h : py::reinterpret_borrow<py::sequence>(seq)) out.push_back(to_arg(owner, h));
  return out;
}

Symbol wrap(py::handle owner, tc::Value v) {
  check(cb(owner));
  return Symbol{py::reinterpret_borrow<py::object>(owner), v};
}

tc::Domain domain_arg(py::handle h) {
  if (py::isinstance<tc::Domain>(h)) return checked<tc::Domain>(h);  // not one made by __new__ alone
  if (PyUnicode_Check(h.ptr())) {
    auto d = tc::parse_domain(h.cast<std::string>());
    if (!d) throw py::value_error(d.error().message);
    return *d;
  }
  throw py::type_error(std::string("a domain must be int32(...), boolean(), float32(...), float64(...) or its "
                                   "spelling such as 'int32:-128:127', not ") +
                       Py_TYPE(h.ptr())->tp_name);
}

py::object binary_op(py::handle self, py::handle other, const char* op, bool reflected) {
  Symbol& s = checked<Symbol>(self);
  if (!py::isinstance<Symbol>(other) && !PyBool_Check(other.ptr()) && !PyLong_Check(other.ptr()) &&
      !PyFloat_Check(other.ptr()))
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  tc::Arg a(s.value);
  tc::Arg b = to_arg(s.owner, other);
  tc::Builder& bl = *cb(s.owner).b;
  tc::Value v = reflected ? bl.op(op, b, a) : bl.op(op, a, b);
  return py::cast(wrap(s.owner, v));
}

}  // namespace

namespace {

/// Symbol: the symbolic value a Builder's methods take and return.
void bind_symbol(py::module_& m) {
  py::class_<Symbol>(m, "Symbol")
      .def_property_readonly("id", [](py::handle s_) {
        const Symbol& s = checked<Symbol>(s_);
        return s.value.id(); })
      .def_property_readonly("op", [](py::handle s_) -> py::object {
        const Symbol& s = checked<Symbol>(s_);
        const tc::Node* n = node_of(s);
        return n ? py::object(py::str(std::string(tc::op_name(n->op)))) : py::object(py::none());
      })
      .def("__repr__", [](py::handle s_) {
        const Symbol& s = checked<Symbol>(s_);
        if (!node_of(s)) return "<symbolic node " + std::to_string(s.value.id()) + " of a built program>";
        return "<symbolic " + tc::describe_node(checked<CoreBuilder>(s.owner).b->peek(), s.value.id()) + ">";
      })
      .def("__bool__", [](py::handle s_) -> bool {
        (void)checked<Symbol>(s_);  // a Symbol made by __new__ alone is refused first
        throw py::type_error(
            "a symbolic value has no truth value: use Builder.select(condition, yes, no) instead of if/and/or, "
            "and Builder.op('eq', x, y) for equality");
      })
      .def("__eq__", [](py::handle s_, py::handle) -> bool {
        const Symbol& s = checked<Symbol>(s_);
        throw py::type_error("symbolic values do not support ==: use Builder.op('eq', x, y) (or 'ne')");
      })
      .def("__ne__", [](py::handle s_, py::handle) -> bool {
        const Symbol& s = checked<Symbol>(s_);
        throw py::type_error("symbolic values do not support !=: use Builder.op('ne', x, y)");
      })
      .def("__hash__", [](py::handle self) { return reinterpret_cast<std::intptr_t>(self.ptr()); })
      .def("__add__", [](py::handle s, py::handle o) { return binary_op(s, o, "add", false); })
      .def("__radd__", [](py::handle s, py::handle o) { return binary_op(s, o, "add", true); })
      .def("__sub__", [](py::handle s, py::handle o) { return binary_op(s, o, "sub", false); })
      .def("__rsub__", [](py::handle s, py::handle o) { return binary_op(s, o, "sub", true); })
      .def("__mul__", [](py::handle s, py::handle o) { return binary_op(s, o, "mul", false); })
      .def("__rmul__", [](py::handle s, py::handle o) { return binary_op(s, o, "mul", true); })
      .def("__truediv__", [](py::handle s, py::handle o) { return binary_op(s, o, "div", false); })
      .def("__rtruediv__", [](py::handle s, py::handle o) { return binary_op(s, o, "div", true); })
      .def("__floordiv__", [](py::handle s, py::handle o) { return binary_op(s, o, "floordiv", false); })
      .def("__rfloordiv__", [](py::handle s, py::handle o) { return binary_op(s, o, "floordiv", true); })
      .def("__mod__", [](py::handle s, py::handle o) { return binary_op(s, o, "mod", false); })
      .def("__rmod__", [](py::handle s, py::handle o) { return binary_op(s, o, "mod", true); })
      .def("__lt__", [](py::handle s, py::handle o) { return binary_op(s, o, "lt", false); })
      .def("__le__", [](py::handle s, py::handle o) { return binary_op(s, o, "le", false); })
      .def("__gt__", [](py::handle s, py::handle o) { return binary_op(s, o, "gt", false); })
      .def("__ge__", [](py::handle s, py::handle o) { return binary_op(s, o, "ge", false); })
      .def("__neg__", [](py::handle s_) {
        const Symbol& s = checked<Symbol>(s_);
        return wrap(s.owner, cb(s.owner).b->op("neg", tc::Arg(s.value))); })
      .def("__pos__", [](py::handle s_) {
        const Symbol& s = checked<Symbol>(s_);
        return s; });
}

using BuilderClass = py::class_<CoreBuilder>;

/// Builder(): its settings, and the leaves: inputs, parameters, constants, state and updates.
void bind_builder_leaves(BuilderClass& cls) {
  cls
      .def(py::init([](py::handle semantics, py::handle surrogate, py::handle temperature, py::handle dtype) {
             nlohmann::json bag = {{"semantics", py_to_json(semantics)}, {"surrogate", py_to_json(surrogate)},
                                   {"temperature", py_to_json(temperature)}, {"dtype", py_to_json(dtype)}};
             auto b = tc::options::builder_settings(bag);
             if (!b) throw py::value_error(b.error().message);
             return CoreBuilder{std::make_unique<tc::Builder>(b->semantics, b->surrogate, b->temperature, b->dtype)};
           }),
           py::arg("semantics") = "exact", py::arg("surrogate") = "sigmoid", py::arg("temperature") = 1.0,
           py::arg("dtype") = "float64")
      .def("input",
           [](py::handle self, const std::string& name, py::handle domain, std::optional<bool> differentiable) {
             return wrap(self, cb(self).b->input(name, domain_arg(domain), differentiable));
           },
           py::arg("name"), py::arg("domain"), py::arg("differentiable") = py::none())
      .def("parameter",
           [](py::handle self, const std::string& name, py::handle value) {
             return wrap(self, cb(self).b->parameter(name, to_double(value.ptr(), "parameter", name)));
           })
      .def("constant",
           [](py::handle self, py::handle value) {
             return wrap(self, cb(self).b->constant(to_double(value.ptr(), "constant", "value")));
           })
      .def("state",
           [](py::handle self, const std::string& name, py::handle initial, py::handle domain) {
             return wrap(self, cb(self).b->state(name, to_double(initial.ptr(), "state", name), domain_arg(domain)));
           })
      .def("update",
           [](py::handle self, py::handle state, py::handle value) {
             if (!py::isinstance<Symbol>(state)) throw py::type_error("update() needs the value returned by state()");
             tc::Arg s = to_arg(self, state);
             cb(self).b->update(std::get<tc::Value>(s.get()), to_arg(self, value));
             check(cb(self));
           });
}

/// The ops: select, op by name, gather, one_hot, affine, sparse_affine, call.
void bind_builder_ops(BuilderClass& cls) {
  cls
      .def("select",
           [](py::handle self, py::handle c, py::handle y, py::handle n) {
             return wrap(self, cb(self).b->select(to_arg(self, c), to_arg(self, y), to_arg(self, n)));
           })
      .def("op",
           [](py::handle self, const std::string& name, py::args args) {
             std::vector<tc::Arg> a;
             for (py::handle h : args) a.push_back(to_arg(self, h));
             return wrap(self, cb(self).b->op(name, a));
           })
      .def("gather",
           [](py::handle self, py::handle values, py::handle index) {
             return wrap(self, cb(self).b->gather(to_args(self, values), to_arg(self, index)));
           })
      .def("one_hot",
           [](py::handle self, py::handle index, int n) {
             // The Builder has no node budget of its own; a width beyond the
             // compiler's default node budget is surely a mistake, not a circuit.
             if (n > 100000)
               raise_error(ErrorKind::Compile, "one_hot() width " + std::to_string(n) +
                                                   " exceeds the node budget of 100000");
             auto vs = cb(self).b->one_hot(to_arg(self, index), n);
             check(cb(self));
             py::list out;
             for (tc::Value v : vs) out.append(wrap(self, v));
             return out;
           })
      .def("gather_one_hot",
           [](py::handle self, py::handle selectors, py::handle values) {
             return wrap(self, cb(self).b->gather_one_hot(to_args(self, selectors), to_args(self, values)));
           })
      .def("affine",
           [](py::handle self, py::handle xs, std::vector<double> coefficients, std::optional<double> bias) {
             return wrap(self, cb(self).b->affine(to_args(self, xs), coefficients, bias));
           },
           py::arg("xs"), py::arg("coefficients"), py::arg("bias") = py::none())
      .def("sparse_affine",
           [](py::handle self, py::handle xs, std::vector<std::int32_t> indices, std::vector<double> coefficients,
              std::optional<double> bias) {
             return wrap(self, cb(self).b->sparse_affine(to_args(self, xs), indices, coefficients, bias));
           },
           py::arg("xs"), py::arg("indices"), py::arg("coefficients"), py::arg("bias") = py::none())
      .def("call",
           [](py::handle self, const std::string& name, py::args args) {
             std::vector<tc::Arg> a;
             for (py::handle h : args) a.push_back(to_arg(self, h));
             return wrap(self, cb(self).b->call(name, a));
           });
}

/// Whole circuits: include another program, scan a body, freeze, count and build.
void bind_builder_structure(BuilderClass& cls) {
  cls
      .def("include",
           [](py::handle self, py::handle program, py::dict inputs, const std::string& prefix) {
             CoreProgram& p = core_program(program);
             std::map<std::string, tc::Arg> wired;
             for (auto [k, v] : inputs) {
               if (!PyUnicode_Check(k.ptr())) throw py::type_error("include() input names must be str");
               wired.emplace(k.cast<std::string>(), to_arg(self, v));
             }
             auto outs = cb(self).b->include(p.program(), wired, prefix);
             check(cb(self));
             py::dict result;
             // Program::outputs order, not the map's.
             for (const auto& [name, _] : p.program().outputs) result[to_str(name)] = wrap(self, outs.at(name));
             return result;
           },
           py::arg("program"), py::arg("inputs"), py::arg("prefix") = "region")
      .def("scan",
           [](py::handle self, py::function body, py::handle init, py::handle sequence) {
             std::vector<tc::Arg> items = to_args(self, sequence);
             std::optional<py::error_already_set> failure;
             struct Scanning {
               int& n;
               explicit Scanning(int& x) : n(x) { ++n; }
               ~Scanning() { --n; }
             } scanning(cb(self).scanning);
             auto v = cb(self).b->scan(
                 [&](tc::Builder&, tc::Value carry, tc::Value item) -> tc::Value {
                   if (failure) return carry;
                   try {
                     py::object r = body(wrap(self, carry), wrap(self, item));
                     tc::Arg a = to_arg(self, r);
                     if (auto* d = std::get_if<double>(&a.get())) return cb(self).b->constant(*d);
                     return std::get<tc::Value>(a.get());
                   } catch (py::error_already_set& e) {
                     failure.emplace(std::move(e));
                     return carry;
                   } catch (py::builtin_exception& e) {
                     e.set_error();
                     failure.emplace();
                     return carry;
                   }
                 },
                 to_arg(self, init), items);
             if (failure) throw std::move(*failure);
             return wrap(self, v);
           })
      .def("freeze",
           [](py::handle self, std::optional<std::vector<std::string>> names) {
             cb(self).b->freeze(names.value_or(std::vector<std::string>{}));
           },
           py::arg("names") = py::none())
      .def("node_count", [](py::handle self) { return cb(self).b->node_count(); })
      .def("build", [](py::handle self, py::handle outputs) {
        CoreBuilder& c = cb(self);
        if (c.scanning) raise_error(ErrorKind::Compile, "build() cannot be called inside a scan() body");
        tc::Result<tc::Program> r = tc::make_error("unreachable");
        if (PyDict_Check(outputs.ptr())) {
          std::vector<std::pair<std::string, tc::Arg>> outs;
          for (auto [k, v] : py::reinterpret_borrow<py::dict>(outputs)) {
            if (!PyUnicode_Check(k.ptr())) throw py::type_error("output names must be str");
            outs.emplace_back(k.cast<std::string>(), to_arg(self, v));
          }
          r = c.b->build(outs);
        } else if (PyList_Check(outputs.ptr()) || PyTuple_Check(outputs.ptr())) {
          std::vector<std::pair<std::string, tc::Arg>> outs;
          std::size_t i = 0;
          for (py::handle v : py::reinterpret_borrow<py::sequence>(outputs))
            outs.emplace_back("result[" + std::to_string(i++) + "]", to_arg(self, v));
          r = c.b->build(outs);
        } else {
          r = c.b->build(to_arg(self, outputs));
        }
        if (!r) raise_diagnostic(ErrorKind::Compile, r.error());
        c.built = true;
        return std::make_shared<CoreProgram>(std::move(r.value()));
      });
}

/// Builder: inputs, parameters, constants, ops, scan, include and build.
void bind_builder_class(py::module_& m) {
  BuilderClass cls(m, "Builder");
  bind_builder_leaves(cls);
  bind_builder_ops(cls);
  bind_builder_structure(cls);
}

}  // namespace

void bind_builder(py::module_& m) {
  bind_symbol(m);
  bind_builder_class(m);
}

}  // namespace tcpy
