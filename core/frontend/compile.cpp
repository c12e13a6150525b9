// Entry points of the Python frontend: pick the function, then lower it.
#include "frontend/compile.h"

#include <set>

#include "frontend/lower.h"
#include "frontend/module_scope.h"
#include "frontend/parser.h"
#include "frontend/subset.h"

namespace tc {

namespace {

Diagnostic located(Diagnostic d, const std::string& file) {
  d.file = file;
  return d;
}

// kMaxSourceBytes: fail fast, before the lexer holds tokens for the whole
// text: a function within the node budget fits in far less.

Status check_source_size(std::string_view source) {
  if (source.size() <= kMaxSourceBytes) return ok_status();
  int line = 1;
  std::size_t at = 0;
  for (std::size_t i = 0; i < kMaxSourceBytes; ++i)
    if (source[i] == '\n') ++line, at = i + 1;
  return make_error("the source is " + std::to_string(source.size()) + " bytes, more than the " +
                        std::to_string(kMaxSourceBytes >> 20) + " MiB limit for a Python source; it passes the "
                        "limit on this line",
                    SourceLoc{line, static_cast<int>(kMaxSourceBytes - at) + 1});
}

std::vector<FunctionSignature> signatures(const py::Module& module) {
  std::vector<FunctionSignature> out;
  for (const auto& s : module.body) {
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

/// Every name the module's functions mention anywhere: bodies, defaults,
/// annotations, decorators (a superset of what the compiled one reads).
void collect_names(const py::Expr* e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == py::ExprKind::Name) out.insert(e->text);
  for (const auto& k : e->kids) collect_names(k.get(), out);
}
void collect_names(const py::Stmt& s, std::set<std::string>& out) {
  for (const auto& t : s.targets) collect_names(t.get(), out);
  collect_names(s.value.get(), out);
  collect_names(s.annotation.get(), out);
  collect_names(s.cause.get(), out);
  for (const auto& b : s.body) collect_names(*b, out);
  for (const auto& b : s.orelse) collect_names(*b, out);
  if (const py::FunctionDef* f = s.def.get()) {
    for (const auto& d : f->decorators) collect_names(d.get(), out);
    for (const auto& p : f->params) {
      collect_names(p.annotation.get(), out);
      collect_names(p.default_value.get(), out);
    }
    collect_names(f->returns.get(), out);
    for (const auto& b : f->body) collect_names(*b, out);
  }
}

/// Modules of CPython's standard library that numeric files import for
/// their tests, benchmarks or other functions. Importing one of them always
/// works, so an unused import of it changes nothing; any other module (numpy,
/// a sibling package of the file's repository) may be missing, and then
/// CPython cannot load the file at all: that import stays refused.
bool standard_module(const std::string& dotted) {
  static const std::set<std::string> kModules = {
      "abc",      "array",   "bisect",    "calendar", "cmath",    "collections", "copy",   "dataclasses",
      "datetime", "decimal", "doctest",   "enum",     "fractions", "functools",  "heapq",  "itertools",
      "json",     "logging", "numbers",   "operator", "os",       "pprint",      "random", "re",
      "statistics", "string", "sys",      "time",     "timeit",   "unittest",    "warnings"};
  return kModules.count(dotted.substr(0, dotted.find('.'))) > 0;
}

/// True when the import is of a standard module and no name it binds is
/// used by any function: it cannot change what a function computes
/// (`import doctest` kept for a `__main__` block), so it is ignored with a
/// warning instead of refused.
bool unused_import(const py::Stmt& s, const std::set<std::string>& used) {
  if (s.imports.empty() || s.text.find(',') != std::string::npos || !standard_module(s.text)) return false;
  for (const auto& n : s.imports)
    if (n.as == "*" || used.count(n.as)) return false;
  return true;
}

}  // namespace

ModuleCompile compile_module(std::string_view source, const CompileOptions& options) {
  ModuleCompile r;
  auto fail = [&](Diagnostic d) {
    r.output = located(std::move(d), options.filename);
    return std::move(r);
  };
  if (Status s = check_source_size(source); !s) return fail(s.error());
  auto module = py::parse_module(source);
  if (!module) return fail(module.error());
  r.functions = signatures(*module);

  // Only function definitions, imports of math, constants (and a docstring)
  // may appear at module level: CPython runs everything else on import, and
  // verify imports the file.
  const py::ModuleScope scope = py::module_scope(*module);
  std::vector<const py::FunctionDef*> functions;
  std::set<std::string> used;
  for (const auto& s : module->body)
    if (s->kind == py::StmtKind::Def) collect_names(*s, used);
  std::vector<Diagnostic> ignored_imports;
  for (std::size_t i = 0; i < module->body.size(); ++i) {
    const py::Stmt& s = *module->body[i];
    if (s.kind == py::StmtKind::Def) {
      functions.push_back(s.def.get());
      continue;
    }
    if (i == 0 && s.kind == py::StmtKind::Expr && s.value->kind == py::ExprKind::String) continue;
    // `import math` (and __future__ and typing for annotations) runs nothing
    // that matters when verify imports the file.
    if (s.kind == py::StmtKind::Import) {
      if (Status st = py::check_import(s); !st) {
        if (!unused_import(s, used)) return fail(st.error());
        ignored_imports.push_back(make_warning("the import of '" + s.text + "' is ignored: no function of this file "
                                               "uses it (only the math module can be used in a compiled function)",
                                               s.loc));
      }
      continue;
    }
    // NAME = constant expression (g = 9.80665): computed while compiling.
    if ((s.kind == py::StmtKind::Assign || s.kind == py::StmtKind::AnnAssign) && s.value) {
      auto bad = scope.not_constant.find(&s);
      if (bad != scope.not_constant.end()) return fail(bad->second);
      continue;
    }
    if (s.kind == py::StmtKind::Unsupported) return fail(make_error(py::unsupported_message(s.text), s.loc));
    return fail(make_error("only function definitions, imports of math and constants (NAME = number) are "
                           "supported at module level: move this statement into the function or remove it",
                           s.loc));
  }
  if (functions.empty()) return fail(make_error("no function definition found: define one with 'def NAME(PARAMS):'"));

  const py::FunctionDef* fn = nullptr;
  std::string names;
  for (const auto* f : functions) names += (names.empty() ? "" : ", ") + f->name;
  if (!options.function.empty())
    for (const auto* f : functions)
      if (f->name == options.function) fn = f;
  if (!fn && options.first_function_by_default) {
    fn = functions[0];
  } else if (!options.function.empty()) {
    if (!fn)
      return fail(make_error("no function named '" + options.function + "' in this file (it defines: " + names + ")",
                             functions[0]->name_loc));
  } else if (functions.size() == 1) {
    fn = functions[0];
  } else {
    return fail(make_error("the file defines several functions (" + names + "): choose one with " +
                               hints::option(options.hints, "function", "NAME"),
                           functions[1]->name_loc));
  }
  r.function = fn->name;
  for (const auto* f : functions)
    if (f != fn && f->name == fn->name) return fail(make_error("function '" + fn->name + "' is defined twice", f->loc));

  // Domains: explicit options, then the file's directives (those naming other
  // functions' parameters are ignored), then the default.
  std::vector<std::pair<std::string, Domain>> directives;
  std::optional<Diagnostic> bad_directive;  // reported after the domains that are known
  if (options.use_input_directives) {
    auto parsed = parse_input_directives(source, options.filename);
    if (parsed) directives = std::move(*parsed);
    else bad_directive = parsed.error();
  }
  CompileOptions with = options;
  for (const auto& p : fn->params) {
    const Domain* chosen = nullptr;
    DomainSource from = DomainSource::Option;
    for (const auto& [n, d] : options.inputs)
      if (n == p.name) chosen = &d;
    if (!chosen)
      for (const auto& [n, d] : directives)
        if (n == p.name) chosen = &d, from = DomainSource::Directive;
    if (!chosen && options.default_domain) chosen = &*options.default_domain, from = DomainSource::Default;
    if (!chosen) continue;
    if (from != DomainSource::Option) with.inputs.emplace_back(p.name, *chosen);
    if (!p.name.empty()) r.inputs.push_back({p.name, *chosen, from});
  }
  if (bad_directive) return fail(*bad_directive);
  r.output = py::lower_function(*module, *fn, with);
  if (r.output.ok() && !ignored_imports.empty())
    r.output->warnings.insert(r.output->warnings.begin(), ignored_imports.begin(), ignored_imports.end());
  return r;
}

Result<CompileOutput> compile_python(std::string_view source, const CompileOptions& options) {
  return compile_module(source, options).output;
}

Result<std::vector<FunctionSignature>> list_functions(std::string_view source, const std::string& filename) {
  if (Status s = check_source_size(source); !s) return located(s.error(), filename);
  auto module = py::parse_module(source);
  if (!module) return located(module.error(), filename);
  return signatures(*module);
}

}  // namespace tc
