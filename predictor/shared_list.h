// An immutable list shared between the predictions that hold it: the
// predictions of candidates that share work (predictor/shared_predictions.h)
// have the same argument shardings, collectives and combined all-reduces, and
// a copy of each (25,000 arguments, thousands of collectives) was most of
// what such a candidate cost. Reads like a const std::vector.
#ifndef MEMPLAN_PREDICTOR_SHARED_LIST_H_
#define MEMPLAN_PREDICTOR_SHARED_LIST_H_

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace memplan::predictor {

template <typename T>
class SharedList {
 public:
  SharedList() = default;
  // Holds `items` (moved; an empty vector holds nothing).
  explicit SharedList(std::vector<T> items)
      : items_(items.empty() ? nullptr
                             : std::make_shared<const std::vector<T>>(std::move(items))) {}

  size_t size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  // Precondition: i < size().
  const T& operator[](size_t i) const { return (*items_)[i]; }
  const T* begin() const { return items_ ? items_->data() : nullptr; }
  const T* end() const { return items_ ? items_->data() + items_->size() : nullptr; }
  const T& front() const { return (*items_)[0]; }
  const T& back() const { return (*items_)[items_->size() - 1]; }
  // The items, as a vector.
  const std::vector<T>& items() const {
    static const std::vector<T> kEmpty;
    return items_ ? *items_ : kEmpty;
  }

  // Element-wise equality (two lists sharing their items are equal at once).
  friend bool operator==(const SharedList& a, const SharedList& b) {
    if (a.items_ == b.items_) return true;
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!(a[i] == b[i])) return false;
    }
    return true;
  }

 private:
  std::shared_ptr<const std::vector<T>> items_;  // null: empty
};

}  // namespace memplan::predictor

#endif  // MEMPLAN_PREDICTOR_SHARED_LIST_H_
