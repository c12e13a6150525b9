#pragma once
/// A value kept on the heap only when it is set: copies copy the value, and
/// an unset box reads and compares as a default-constructed T. For fields
/// that few objects of a large array use (an IR node's affine terms), so the
/// array stays small and the rare value costs one pointer elsewhere.
#include <memory>

namespace tc {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  /// The value, or a shared default T when unset (no allocation).
  [[nodiscard]] const T& get() const { return p_ ? *p_ : empty(); }
  /// The value to change, allocated on first use.
  T& edit() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }
  [[nodiscard]] bool is_set() const { return p_ != nullptr; }

  bool operator==(const Boxed& o) const { return get() == o.get(); }

 private:
  static const T& empty() {
    static const T none{};
    return none;
  }
  std::unique_ptr<T> p_;
};

}  // namespace tc
