// The embind layer's shared parts (program.cpp, runtime.cpp, builder.cpp
// and module.cpp use them): results as JavaScript values, the guard that
// turns C++ exceptions into errors, and conversions of option values.
//
// Every fallible method returns an object, {value: ...} on success or
// {error: {kind, message, detail, line, column, node}} on failure: the core
// reports errors as values, and the TypeScript layer turns {error} into a
// thrown Error subclass. A C++ exception (std::bad_alloc when the heap is
// full, std::length_error, anything else) never leaves a method: every
// method is registered through guarded<> below, which throws {error: ...}
// (kind "resource" or "internal") as a JavaScript value instead, and the
// TypeScript layer turns that into a TensorcodeError too. Without it,
// Emscripten hands JavaScript the exception's address as a bare number.
#pragma once

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/diagnostic.h"
#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/domain.h"
#include "ir/program.h"

namespace tc::wasm {

using emscripten::val;

/// `show_location`: put "FILE:LINE:COL: " in the message. Off where the
/// location points into a Python source this text did not come from (an
/// artifact's nodes), as the CLI does; line and column are reported anyway.
val error_value(std::string_view kind, const Diagnostic& d, bool show_location = true);
val error_value(std::string_view kind, const std::string& message);
/// The message for an exception caught at the boundary: what the user can do about it.
std::pair<std::string, std::string> exception_error();
/// The JavaScript spelling of a value, for messages.
std::string js_text(const val& v);
/// An integer option: a number, finite, integral, from lo to hi.
Result<double> integer_option(const val& v, const std::string& name, double lo, double hi);
val ok_value(val v);
val ok_value();
/// Throws {error: {kind, message, detail}} into JavaScript. Called with no
/// C++ exception in flight; the strings live in statics because a
/// JavaScript throw skips the destructors of the frames it leaves.
[[noreturn]] void throw_error(std::string_view kind, const std::string& message);
std::vector<std::string> keys_of(const val& obj);
/// A JS object of numbers (true/false allowed) as a name -> value map.
Result<std::map<std::string, double, std::less<>>> named_numbers(const val& obj, const std::string& what);
std::vector<std::string> string_list(const val& arr);
val number_map(const std::vector<std::string>& names, const std::vector<double>& values);
val domain_value(const Domain& d);
/// A JavaScript option value as JSON for core's option layer (scalars as
/// themselves; an array or other object as an empty one, named by its type).
nlohmann::json option_json(const val& v);
/// A string option, or an error naming it (embind's own conversion would
/// throw a JavaScript BindingError through the C++ frames instead).
Result<std::string> string_option(const val& v, const std::string& name);
/// A boolean option: true or false only (embind would take any value's truthiness).
Result<bool> bool_option(const val& v, const std::string& name);
Result<Semantics> semantics_arg(const val& v);
Result<Dtype> dtype_arg(const val& v);
Result<Surrogate> surrogate_arg(const val& v);
/// A relaxation temperature: finite and greater than 0 (core's option rule).
Result<double> temperature_arg(const val& v);
bool given(const val& o, const char* key);
val bytes_value(const std::vector<std::uint8_t>& bytes);
/// JavaScript functions as the engine's Bindings. `spec` is {name: {forward,
/// vjp?}}; the TypeScript layer wraps both so they never throw: a failure
/// comes back as {error: message} and is rethrown here as a C++ exception,
/// which the engine reports as "binding 'NAME' failed: MESSAGE".
std::vector<double> numbers_of(const val& v, const std::string& what);
val js_numbers(std::span<const double> xs);
std::shared_ptr<Bindings> bindings_from(const val& spec);

/// The largest count a std::size_t holds here (32 bits in WebAssembly).
constexpr double kSizeMax = static_cast<double>(std::numeric_limits<std::size_t>::max());

/// `Method` with every C++ exception turned into an error (see the top).
template <auto Method>
struct guarded;

template <class R, class F>
R guard_call(F&& f) {
  std::pair<std::string, std::string> e;
  try {
    return f();
  } catch (...) {
    e = exception_error();
  }
  // A static: the JavaScript throw below skips this frame's destructors.
  static std::pair<std::string, std::string> pending;
  pending = std::move(e);
  throw_error(pending.first, pending.second);
}

template <class C, class R, class... A, R (C::*Method)(A...)>
struct guarded<Method> {
  static R call(C& self, A... args) {
    return guard_call<R>([&]() -> R { return (self.*Method)(std::forward<A>(args)...); });
  }
};
template <class C, class R, class... A, R (C::*Method)(A...) const>
struct guarded<Method> {
  static R call(const C& self, A... args) {
    return guard_call<R>([&]() -> R { return (self.*Method)(std::forward<A>(args)...); });
  }
};
template <class R, class... A, R (*Function)(A...)>
struct guarded<Function> {
  static R call(A... args) {
    return guard_call<R>([&]() -> R { return Function(std::forward<A>(args)...); });
  }
};

}  // namespace tc::wasm
