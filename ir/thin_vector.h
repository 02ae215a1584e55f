// A vector one pointer wide, for the IR's many short lists that are mostly
// empty (an HLO instruction's called computations and control predecessors,
// an attribute set's slice, padding and untyped attributes): an empty one
// is a null pointer and allocates nothing; a non-empty one is one heap
// block holding its size, its capacity and its elements. std::vector's
// three pointers are 24 bytes in every record, set or not: hundreds of
// thousands of records in a large module.
//
// For elements trivially copy-constructible and destructible (they move by
// memcpy). What it
// offers of std::vector's interface behaves as there; comparison is
// element-wise, also against a std::vector.
#ifndef MEMPLAN_IR_THIN_VECTOR_H_
#define MEMPLAN_IR_THIN_VECTOR_H_

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace memplan::ir {

template <typename T>
class ThinVector {
  static_assert(std::is_trivially_copy_constructible_v<T> && std::is_trivially_destructible_v<T>,
                "ThinVector moves elements by memcpy and never destroys them");
  static_assert(alignof(T) <= 8, "elements follow an 8-byte header");

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  ThinVector() = default;
  ThinVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  // Explicit: an implicit one would let `cond ? thin : std_vector` copy.
  explicit ThinVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }
  template <typename It>
  ThinVector(It first, It last) {
    assign(first, last);
  }
  ThinVector(const ThinVector& other) { assign(other.begin(), other.end()); }
  ThinVector(ThinVector&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
  ThinVector& operator=(const ThinVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  ThinVector& operator=(ThinVector&& other) noexcept {
    if (this != &other) {
      ::operator delete(block_);
      block_ = std::exchange(other.block_, nullptr);
    }
    return *this;
  }
  ThinVector& operator=(const std::vector<T>& values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ThinVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  ~ThinVector() { ::operator delete(block_); }

  size_t size() const { return block_ ? block_->size : 0; }
  size_t capacity() const { return block_ ? block_->capacity : 0; }
  bool empty() const { return size() == 0; }

  T* data() { return block_ ? Elements() : nullptr; }
  const T* data() const { return block_ ? Elements() : nullptr; }
  iterator begin() { return data(); }
  iterator end() { return data() + size(); }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size(); }
  const_iterator cbegin() const { return begin(); }
  const_iterator cend() const { return end(); }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  // Require an index below size() (a non-empty vector for front and back).
  T& operator[](size_t i) { assert(i < size()); return Elements()[i]; }
  const T& operator[](size_t i) const { assert(i < size()); return Elements()[i]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size() - 1]; }
  const T& back() const { return (*this)[size() - 1]; }

  void reserve(size_t n) {
    if (n > capacity()) Reallocate(n);
  }
  void push_back(const T& value) {
    if (size() == capacity()) {
      const T copy = value;  // `value` may be one of this vector's elements
      Reallocate(std::max<size_t>(2, 2 * capacity()));
      new (Elements() + block_->size++) T(copy);
      return;
    }
    new (Elements() + block_->size++) T(value);
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  void pop_back() {
    assert(!empty());
    --block_->size;
  }
  // Keeps the capacity, as std::vector does.
  void clear() {
    if (block_) block_->size = 0;
  }
  void resize(size_t n, const T& value = T()) {
    reserve(n);
    if (n == 0) {
      clear();
      return;
    }
    std::uninitialized_fill(Elements() + size(), Elements() + std::max(n, size()), value);
    block_->size = static_cast<uint32_t>(n);
  }
  template <typename It>
  void assign(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    if (n == 0) {
      clear();
      return;
    }
    if (n > capacity()) {
      ::operator delete(block_);
      block_ = nullptr;
      Reallocate(n);
    }
    std::uninitialized_copy(first, last, Elements());
    block_->size = static_cast<uint32_t>(n);
  }
  void assign(size_t n, const T& value) {
    clear();
    resize(n, value);
  }
  iterator insert(const_iterator at, const T& value) {
    const size_t k = static_cast<size_t>(at - begin());
    push_back(value);
    std::rotate(begin() + k, end() - 1, end());
    return begin() + k;
  }
  iterator erase(const_iterator first, const_iterator last) {
    const size_t k = static_cast<size_t>(first - begin());
    const size_t n = static_cast<size_t>(last - first);
    std::copy(begin() + k + n, end(), begin() + k);
    if (block_) block_->size -= static_cast<uint32_t>(n);
    return begin() + k;
  }
  iterator erase(const_iterator at) { return erase(at, at + 1); }
  void shrink_to_fit() {
    if (empty()) {
      ::operator delete(block_);
      block_ = nullptr;
    } else if (size() < capacity()) {
      Reallocate(size());
    }
  }
  void swap(ThinVector& other) noexcept { std::swap(block_, other.block_); }

  std::vector<T> ToVector() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const ThinVector& a, const ThinVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const ThinVector& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct Header {
    uint32_t size;
    uint32_t capacity;
  };
  static_assert(sizeof(Header) == 8);

  T* Elements() const { return reinterpret_cast<T*>(reinterpret_cast<char*>(block_) + sizeof(Header)); }

  // Moves the elements to a block of capacity `n` (at least size()).
  void Reallocate(size_t n) {
    assert(n >= size() && n <= UINT32_MAX);
    auto* block = static_cast<Header*>(::operator new(sizeof(Header) + n * sizeof(T)));
    block->size = static_cast<uint32_t>(size());
    block->capacity = static_cast<uint32_t>(n);
    if (block_ != nullptr) {
      std::memcpy(reinterpret_cast<char*>(block) + sizeof(Header), Elements(),
                  size() * sizeof(T));
      ::operator delete(block_);
    }
    block_ = block;
  }

  Header* block_ = nullptr;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_THIN_VECTOR_H_
