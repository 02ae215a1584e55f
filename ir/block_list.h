// An append-only sequence whose elements never move once made, stored in
// blocks of a fixed number of elements: one allocation per block. (A
// std::deque allocates a node per element once elements are larger than
// 256 bytes, as Module's attribute sets are: one heap block, with its
// malloc header, per instruction that has attributes.)
#ifndef MEMPLAN_IR_BLOCK_LIST_H_
#define MEMPLAN_IR_BLOCK_LIST_H_

#include <cassert>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace memplan::ir {

template <typename T, size_t kBlockElements = 256>
class BlockList {
 public:
  BlockList() = default;
  BlockList(const BlockList& other) {
    for (size_t i = 0; i < other.size(); ++i) emplace_back(other[i]);
  }
  BlockList(BlockList&& other) noexcept
      : blocks_(std::move(other.blocks_)), size_(std::exchange(other.size_, 0)) {
    other.blocks_.clear();
  }
  BlockList& operator=(BlockList other) noexcept {
    std::swap(blocks_, other.blocks_);
    std::swap(size_, other.size_);
    return *this;
  }
  ~BlockList() {
    for (size_t i = 0; i < size_; ++i) (*this)[i].~T();
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  // Require i < size().
  T& operator[](size_t i) {
    assert(i < size_);
    return blocks_[i / kBlockElements].get()[i % kBlockElements];
  }
  const T& operator[](size_t i) const {
    assert(i < size_);
    return blocks_[i / kBlockElements].get()[i % kBlockElements];
  }

  // Destroys the last element. Requires !empty().
  void pop_back() {
    assert(size_ > 0);
    (*this)[size_ - 1].~T();
    --size_;
  }

  // Appends T(args...) and returns it; earlier elements stay where they are.
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == blocks_.size() * kBlockElements) {
      blocks_.emplace_back(static_cast<T*>(::operator new(sizeof(T) * kBlockElements)));
    }
    T* slot = blocks_.back().get() + size_ % kBlockElements;
    new (slot) T(std::forward<Args>(args)...);
    ++size_;
    return *slot;
  }

 private:
  // Raw storage: the elements in it are destroyed by ~BlockList.
  struct FreeStorage {
    void operator()(T* block) const { ::operator delete(block); }
  };
  std::vector<std::unique_ptr<T, FreeStorage>> blocks_;
  size_t size_ = 0;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_BLOCK_LIST_H_
