// An optional value held on the heap: what std::optional<T> says (empty or
// one T, compared and copied by value), in the space of one pointer. For the
// large fields most instances leave empty (HloAttributes' sharding and
// dimension numbers: an HLO module has hundreds of thousands of attribute
// sets, and an inline std::optional<HloSharding> alone is 504 bytes of each).
#ifndef MEMPLAN_IR_BOXED_H_
#define MEMPLAN_IR_BOXED_H_

#include <cassert>
#include <memory>
#include <optional>
#include <utility>

namespace memplan::ir {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: converts as std::optional does
  Boxed(const T& value) : value_(std::make_unique<T>(value)) {}  // NOLINT
  Boxed(T&& value) : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(const std::optional<T>& value) {  // NOLINT
    if (value) value_ = std::make_unique<T>(*value);
  }
  Boxed(std::optional<T>&& value) {  // NOLINT
    if (value) value_ = std::make_unique<T>(*std::move(value));
  }
  Boxed(const Boxed& other) : value_(other ? std::make_unique<T>(*other) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) value_ = other ? std::make_unique<T>(*other) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  ~Boxed() = default;

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return value_ != nullptr; }

  // Require a value, as std::optional's do.
  T& operator*() & { assert(value_); return *value_; }
  const T& operator*() const& { assert(value_); return *value_; }
  T&& operator*() && { assert(value_); return std::move(*value_); }
  T* operator->() { assert(value_); return value_.get(); }
  const T* operator->() const { assert(value_); return value_.get(); }
  T& value() & { return **this; }
  const T& value() const& { return **this; }

  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  // A copy as a std::optional, for code that takes one.
  operator std::optional<T>() const {  // NOLINT
    return value_ ? std::optional<T>(*value_) : std::nullopt;
  }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (!a || !b) return !a && !b;
    return *a == *b;
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a; }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_BOXED_H_
