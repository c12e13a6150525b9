// Lowering of one function to the circuit.
//
// Control flow is compiled by predication. Every block is lowered "as if it
// runs" and returns a Flow: the variables on its fall-through path, a
// boolean wire `active` saying whether that path is taken, and what left the
// block early (return, break, continue). Joins become `select` nodes, and
// because exact select evaluates only the chosen branch, a value is computed
// at run time only on the paths where CPython would compute it; so errors
// such as a division by zero behind a guard never fire spuriously.
#include "frontend/lower.h"

#include <algorithm>
#include <map>
#include <set>

#include "frontend/lowerer.h"
#include "frontend/module_scope.h"
#include "frontend/subset.h"
#include "passes/pass_util.h"

namespace tc::py {

namespace lowering {

/// Unused-assignment warnings shown one by one; the rest are one line.
constexpr std::size_t kMaxUnusedWarnings = 100;

CompileOutput Lowerer::run() {
  Env env = parameters();
  Flow f = block(fn_.body, std::move(env), /*function_body=*/true);
  if (!is_false(f.active) || !f.rv) {
    fail("'" + fn_.name + "' can reach the end of its body without a return (it would return None): add a "
         "return statement on every path",
         fn_.name_loc);
  }
  std::vector<std::pair<std::string, Arg>> outs;
  const Val& rv = *f.rv;
  if (rv.raises)
    fail("'" + fn_.name + "' raises for every input in the domains: widen the domains to inputs it accepts",
         fn_.name_loc);
  if (rv.array) {
    for (std::size_t i = 0; i < rv.items.size(); ++i)
      outs.emplace_back("result[" + std::to_string(i) + "]", Arg(mat(rv.items[i], fn_.name_loc)));
  } else {
    outs.emplace_back("result", Arg(mat(rv, fn_.name_loc)));
  }
  // lower_function validates the pruned program: an invalid circuit is still
  // reported as an internal error, after one walk over it instead of two.
  auto built = b_.build_then_validate_later(outs);
  if (!built) {
    Diagnostic d = built.error();
    d.message = "internal error: the lowered circuit is invalid: " + d.message;
    throw Fail{d};
  }
  CompileOutput out;
  out.program = prune(std::move(*built), out.warnings);
  return out;
}

Program Lowerer::prune(Program p, Diagnostics& warnings) {
  std::vector<bool> needed = passes::live_nodes(p);

  // A site is used when one of its assignments was read and (if it made
  // nodes) one of those nodes is needed.
  std::vector<char> used(sites_.size(), 0);
  for (const DefRecord& d : defs_) {
    bool u = d.read;
    if (u && d.nodes_end > d.nodes_begin) {
      u = false;
      for (std::uint32_t k = d.nodes_begin; k < d.nodes_end; ++k)
        if (needed[static_cast<std::size_t>(def_nodes_[k])]) u = true;
    }
    if (u) used[static_cast<std::size_t>(d.site)] = 1;
  }
  // One warning per unused site up to kMaxUnusedWarnings, then one line
  // for the rest: a 50,000-name tuple assignment printed 49,999 lines.
  std::size_t unused = 0;
  for (std::size_t k = 0; k < sites_.size(); ++k)
    if (!used[k] && ++unused <= kMaxUnusedWarnings) {
      Diagnostic w = make_warning("the value assigned to '" + quote_user(sites_[k].second) + "' is never used",
                                  sites_[k].first);
      w.file = opts_.filename;
      warnings.push_back(std::move(w));
    }
  if (unused > kMaxUnusedWarnings) {
    std::size_t k = 0;
    for (std::size_t seen = 0; k < sites_.size(); ++k)
      if (!used[k] && ++seen > kMaxUnusedWarnings) break;
    Diagnostic w = make_warning("and " + std::to_string(unused - kMaxUnusedWarnings) +
                                    " more assigned values that are never used, from here on",
                                sites_[k].first);
    w.file = opts_.filename;
    warnings.push_back(std::move(w));
  }
  // An if statement whose branches change nothing the result depends on:
  // its condition is not computed, so an error in it (a division by zero)
  // does not surface as it would in CPython.
  std::map<SourceLoc, bool> cond_used;
  std::vector<SourceLoc> cond_order;
  for (const auto& [loc, id] : conditions_) {
    auto [it, fresh] = cond_used.emplace(loc, false);
    if (fresh) cond_order.push_back(loc);
    it->second = it->second || needed[static_cast<std::size_t>(id)];
  }
  for (const SourceLoc& loc : cond_order)
    if (!cond_used[loc]) {
      Diagnostic w = make_warning("this condition decides nothing the result depends on, so it is not computed", loc);
      w.file = opts_.filename;
      warnings.push_back(std::move(w));
    }

  // Inputs stay even when unused: they are the function's signature. The
  // lowering made them itself, so no walk over every node looks for them.
  std::vector<bool> keep = std::move(needed);
  for (NodeId id : inputs_) keep[static_cast<std::size_t>(id)] = true;
  const std::vector<NodeId> alias = passes::identity_alias(p);
  return passes::compact(std::move(p), keep, alias);
}

}  // namespace lowering

using lowering::Fail;
using lowering::Lowerer;

namespace {

// The functions of the file that `fn` calls, directly or through others, in
// the order first called: each is checked against the subset like `fn`.
void called_functions(const Expr& e, const ModuleScope& scope, std::vector<const FunctionDef*>& out);
void called_functions(const std::vector<StmtPtr>& body, const ModuleScope& scope, std::vector<const FunctionDef*>& out) {
  for (const auto& s : body) {
    for (const auto& t : s->targets) called_functions(*t, scope, out);
    if (s->value) called_functions(*s->value, scope, out);
    called_functions(s->body, scope, out);
    called_functions(s->orelse, scope, out);
  }
}
void called_functions(const Expr& e, const ModuleScope& scope, std::vector<const FunctionDef*>& out) {
  if (e.kind == ExprKind::Call && !e.kids.empty() && e.kids[0]->kind == ExprKind::Name) {
    auto it = scope.functions.find(e.kids[0]->text);
    if (it != scope.functions.end() && it->second &&
        std::find(out.begin(), out.end(), it->second) == out.end()) {
      out.push_back(it->second);
      called_functions(it->second->body, scope, out);
    }
  }
  for (const auto& k : e.kids)
    if (k) called_functions(*k, scope, out);
}

}  // namespace

Result<CompileOutput> lower_function(const Module& module, const FunctionDef& fn, const CompileOptions& options) {
  const ModuleScope scope = module_scope(module);
  auto located = [&](Diagnostic d) {
    d.file = options.filename;
    return d;
  };
  if (Status st = check_subset(fn, scope, options.hints); !st) return located(st.error());
  std::vector<const FunctionDef*> helpers;
  called_functions(fn.body, scope, helpers);
  for (const FunctionDef* g : helpers)
    if (g != &fn)
      if (Status st = check_subset(*g, scope, options.hints); !st) return located(st.error());
  auto resolved = resolve(fn, scope, options);
  if (!resolved) return located(resolved.error());
  try {
    Lowerer l(fn, options, *resolved);
    CompileOutput out = l.run();
    if (Status v = validate(out.program); !v) {
      Diagnostic d = v.error();
      d.message = "internal error: the compiled circuit is invalid: " + d.message;
      return located(d);
    }
    return out;
  } catch (const Fail& f) {
    return located(f.d);
  }
}

}  // namespace tc::py
