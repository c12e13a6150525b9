// CoreBuilder: a tc::Builder as the TypeScript Builder's native handle.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common.h"
#include "ir/builder.h"
#include "program.h"

namespace tc::wasm {

/// tc::Builder with values addressed by node id: the TypeScript Value holds
/// the id, and every Value the builder returned is kept here.
class CoreBuilder {
 public:
  CoreBuilder() = default;

  val init(const val& opts);

  int input(const std::string& name, const std::string& domain, const val& differentiable);
  int parameter(const std::string& name, double initial) { return keep(b_->parameter(name, initial)); }
  int constant(double value) { return keep(b_->constant(value)); }
  int state(const std::string& name, double initial, const std::string& domain);
  void update(const val& state, const val& next) { b_->update(value(state), arg(next)); }
  int select(const val& c, const val& yes, const val& no) { return keep(b_->select(arg(c), arg(yes), arg(no))); }
  int op(const std::string& name, const val& args) { return keep(b_->op(name, args_of(args))); }
  int gather(const val& values, const val& index) { return keep(b_->gather(args_of(values), arg(index))); }
  val one_hot(const val& index, const val& n);
  int gather_one_hot(const val& selectors, const val& values);
  int affine(const val& xs, const val& coefficients, const val& bias);
  int sparse_affine(const val& xs, const val& indices, const val& coefficients, const val& bias);
  int call(const std::string& name, const val& args) { return keep(b_->call(name, args_of(args))); }
  val include(const CoreProgram& program, const val& inputs, const std::string& prefix);
  /// body(carry id, item id) returns a value (an id object or a number).
  int scan(const val& body, const val& init, const val& sequence);
  void freeze(const val& names) { b_->freeze(string_list(names)); }

  /// outputs: a value, or an object {name: value} (insertion order kept).
  val build_into(CoreProgram& out, const val& outputs);

 private:
  int keep(Value v);
  int fail(const std::string& message);
  /// A TypeScript argument: a number literal or {id}.
  Arg arg(const val& v);
  Value value(const val& v);
  std::vector<Arg> args_of(const val& arr);
  static std::optional<double> optional_number(const val& v);

  std::unique_ptr<Builder> b_;
  std::vector<Value> handles_;
  std::optional<Diagnostic> error_;
};

}  // namespace tc::wasm
