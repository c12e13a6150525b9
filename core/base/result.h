#pragma once
/// Result<T>: a value or one error Diagnostic. Core never throws across its
/// API; callers test ok() and read value() or error().
#include <cassert>
#include <type_traits>
#include <utility>
#include <variant>

#include "base/diagnostic.h"

namespace tc {

/// Internal invariant check: a failure is a bug in tensorcode, never a user error.
#define TC_ASSERT(cond)                                                                \
  do {                                                                                 \
    if (!(cond)) ::tc::internal_error(__FILE__, __LINE__, #cond);                      \
  } while (0)
[[noreturn]] void internal_error(const char* file, int line, const char* what);

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                 // NOLINT: implicit by design
  Result(Diagnostic error) : v_(std::move(error)) {}        // NOLINT
  template <class U, class = std::enable_if_t<std::is_convertible_v<U, T> && !std::is_same_v<std::decay_t<U>, T> &&
                                              !std::is_same_v<std::decay_t<U>, Diagnostic>>>
  Result(U&& value) : v_(T(std::forward<U>(value))) {}      // NOLINT

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { TC_ASSERT(ok()); return std::get<0>(v_); }
  const T& value() const& { TC_ASSERT(ok()); return std::get<0>(v_); }
  T&& value() && { TC_ASSERT(ok()); return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Diagnostic& error() const { TC_ASSERT(!ok()); return std::get<1>(v_); }
  Diagnostic& error() { TC_ASSERT(!ok()); return std::get<1>(v_); }

 private:
  std::variant<T, Diagnostic> v_;
};

/// Success-or-error for operations without a value.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace tc
