// An optional value held on the heap: what std::optional<T> says (empty or
// one T, compared and copied by value), in the space of one pointer. For the
// large fields most instances leave empty (HloAttributes' sharding and
// dimension numbers: an HLO module has hundreds of thousands of attribute
// sets, and an inline std::optional<HloSharding> alone is 504 bytes of each).
//
// Copies share the value until one is written (copy on write): a copy costs
// a reference count, not a T (equal values a parser meets again and again,
// every entry parameter's sharding, can be one T). A non-const access first
// makes the value this Boxed's own, so writes never reach another copy; a
// reference it returns must not be written through after the Boxed is
// copied. Reference counts are atomic: copies may live on other threads.
#ifndef MEMPLAN_IR_BOXED_H_
#define MEMPLAN_IR_BOXED_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <optional>
#include <utility>

namespace memplan::ir {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: converts as std::optional does
  Boxed(const T& value) : node_(new Node(value)) {}  // NOLINT
  Boxed(T&& value) : node_(new Node(std::move(value))) {}  // NOLINT
  Boxed(const std::optional<T>& value) {  // NOLINT
    if (value) node_ = new Node(*value);
  }
  Boxed(std::optional<T>&& value) {  // NOLINT
    if (value) node_ = new Node(*std::move(value));
  }
  Boxed(const Boxed& other) : node_(other.node_) {
    if (node_ != nullptr) node_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  Boxed(Boxed&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  Boxed& operator=(const Boxed& other) {
    if (node_ != other.node_) *this = Boxed(other);
    return *this;
  }
  Boxed& operator=(Boxed&& other) noexcept {
    if (this != &other) {
      Release();
      node_ = std::exchange(other.node_, nullptr);
    }
    return *this;
  }
  ~Boxed() { Release(); }

  bool has_value() const { return node_ != nullptr; }
  explicit operator bool() const { return node_ != nullptr; }

  // Require a value, as std::optional's do. The non-const ones make the
  // value this Boxed's own first.
  T& operator*() & { return Own(); }
  const T& operator*() const& { assert(node_); return node_->value; }
  T&& operator*() && { return std::move(Own()); }
  T* operator->() { return &Own(); }
  const T* operator->() const { assert(node_); return &node_->value; }
  T& value() & { return Own(); }
  const T& value() const& { return **this; }

  template <typename... Args>
  T& emplace(Args&&... args) {
    Node* made = new Node(std::forward<Args>(args)...);
    Release();
    node_ = made;
    return node_->value;
  }
  void reset() {
    Release();
    node_ = nullptr;
  }

  // Whether this and `other` hold one shared value (not merely equal ones).
  bool SharesValueWith(const Boxed& other) const {
    return node_ != nullptr && node_ == other.node_;
  }

  // A copy as a std::optional, for code that takes one.
  operator std::optional<T>() const {  // NOLINT
    return node_ ? std::optional<T>(node_->value) : std::nullopt;
  }

  friend bool operator==(const Boxed& a, const Boxed& b) {
    if (!a || !b) return !a && !b;
    return a.node_ == b.node_ || *a == *b;
  }
  friend bool operator==(const Boxed& a, std::nullopt_t) { return !a; }

 private:
  struct Node {
    template <typename... Args>
    explicit Node(Args&&... args) : value(std::forward<Args>(args)...) {}
    std::atomic<int64_t> refs{1};
    T value;
  };

  void Release() {
    if (node_ != nullptr && node_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete node_;
  }
  // The value, copied first when another Boxed shares it.
  T& Own() {
    assert(node_);
    if (node_->refs.load(std::memory_order_acquire) > 1) {
      Node* copy = new Node(node_->value);
      Release();
      node_ = copy;
    }
    return node_->value;
  }

  Node* node_ = nullptr;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_BOXED_H_
