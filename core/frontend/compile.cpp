// Entry points of the Python frontend: pick the function, then lower it.
#include "frontend/compile.h"

#include "frontend/lower.h"
#include "frontend/parser.h"
#include "frontend/subset.h"

namespace tc {

namespace {

Diagnostic located(Diagnostic d, const std::string& file) {
  d.file = file;
  return d;
}

}  // namespace

Result<CompileOutput> compile_python(std::string_view source, const CompileOptions& options) {
  auto module = py::parse_module(source);
  if (!module) return located(module.error(), options.filename);

  // Only function definitions (and a docstring) may appear at module level:
  // CPython runs everything else on import, and verify imports the file.
  std::vector<const py::FunctionDef*> functions;
  for (std::size_t i = 0; i < module->body.size(); ++i) {
    const py::Stmt& s = *module->body[i];
    if (s.kind == py::StmtKind::Def) {
      functions.push_back(s.def.get());
      continue;
    }
    if (i == 0 && s.kind == py::StmtKind::Expr && s.value->kind == py::ExprKind::String) continue;
    if (s.kind == py::StmtKind::Unsupported)
      return located(make_error(py::unsupported_message(s.text), s.loc), options.filename);
    return located(make_error("only function definitions are supported at module level: move this statement into "
                              "the function or remove it",
                              s.loc),
                   options.filename);
  }
  if (functions.empty())
    return located(make_error("no function definition found: define one with 'def NAME(PARAMS):'"), options.filename);

  const py::FunctionDef* fn = nullptr;
  std::string names;
  for (const auto* f : functions) names += (names.empty() ? "" : ", ") + f->name;
  if (!options.function.empty()) {
    for (const auto* f : functions)
      if (f->name == options.function) fn = f;
    if (!fn)
      return located(make_error("no function named '" + options.function + "' in this file (it defines: " + names + ")",
                                functions[0]->name_loc),
                     options.filename);
  } else if (functions.size() == 1) {
    fn = functions[0];
  } else {
    return located(make_error("the file defines several functions (" + names + "): choose one with --function NAME",
                              functions[1]->name_loc),
                   options.filename);
  }
  for (const auto* f : functions)
    if (f != fn && f->name == fn->name)
      return located(make_error("function '" + fn->name + "' is defined twice", f->loc), options.filename);

  if (!options.use_input_directives) return py::lower_function(*module, *fn, options);
  CompileOptions with = options;
  auto directives = parse_input_directives(source, options.filename);
  if (!directives) return directives.error();
  for (const auto& [name, domain] : *directives) {
    bool given = false;
    for (const auto& [n, _] : with.inputs) given = given || n == name;
    bool is_param = false;
    for (const auto& p : fn->params) is_param = is_param || p.name == name;
    if (!given && is_param) with.inputs.emplace_back(name, domain);  // other functions' directives are ignored
  }
  return py::lower_function(*module, *fn, with);
}

Result<std::vector<FunctionSignature>> list_functions(std::string_view source, const std::string& filename) {
  auto module = py::parse_module(source);
  if (!module) return located(module.error(), filename);
  std::vector<FunctionSignature> out;
  for (const auto& s : module->body) {
    if (s->kind != py::StmtKind::Def) continue;
    FunctionSignature sig;
    sig.name = s->def->name;
    sig.location = s->def->loc;
    for (const auto& p : s->def->params)
      if (!p.name.empty()) sig.parameters.push_back(p.name);
    out.push_back(std::move(sig));
  }
  return out;
}

}  // namespace tc
