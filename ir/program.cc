#include "ir/program.h"

#include <algorithm>

#include "ir/strings.h"

namespace memplan::ir {

std::string_view Program::Intern(std::string s) {
  if (!interned_) interned_ = std::make_shared<std::deque<std::string>>();
  interned_->push_back(std::move(s));
  return interned_->back();
}

namespace {

// b - a for a <= b, exact.
inline uint64_t Distance(int64_t a, int64_t b) {
  return static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

// The first item with `id` in `items` sorted by id, as std::lower_bound finds
// it. Parsers make ids unique, and then an item k positions after one with
// id a has an id of at least a + k (and k before one with id b, at most
// b - k): each probe bounds where `id` can be to within its distance from
// the probed id. Probing where `id` would be if ids were evenly spread finds
// it in one or two probes for the nearly dense ids programs have; a few
// probes, then a binary search of what is left. What this finds is checked
// (and a miss searched for over everything), so non-unique ids only cost
// time.
template <typename T, typename Id>
const T* FindById(const std::vector<T>& items, Id id) {
  if (items.empty()) return nullptr;
  const int64_t x = id.value();
  const auto key = [&](int64_t k) { return items[k].id.value(); };
  const auto first_of = [&](int64_t k) {
    return items[k].id == id && (k == 0 || items[k - 1].id != id);
  };
  int64_t lo = 0;
  int64_t hi = static_cast<int64_t>(items.size()) - 1;
  if (x < key(lo) || x > key(hi)) return nullptr;
  // Ids dense from the first: the item is at its distance from the first
  // id (the probe below would find it there too, after a 128-bit division).
  const uint64_t dense = Distance(key(lo), x);
  if (dense <= static_cast<uint64_t>(hi) && key(static_cast<int64_t>(dense)) == x &&
      first_of(static_cast<int64_t>(dense))) {
    return &items[dense];
  }
  for (int probe = 0; probe < 6 && lo <= hi; ++probe) {
    // Here key(lo) <= x <= key(hi) when ids are unique.
    const int64_t key_lo = key(lo);
    const int64_t key_hi = key(hi);
    if (key_lo > x || key_hi < x) break;
    if (key_lo == x) {
      if (first_of(lo)) return &items[lo];
      break;
    }
    if (key_hi == x) {
      if (first_of(hi)) return &items[hi];
      break;
    }
    const uint64_t width = static_cast<uint64_t>(hi - lo);
    const uint64_t guess_offset = static_cast<uint64_t>(
        static_cast<unsigned __int128>(Distance(key_lo, x)) * width / Distance(key_lo, key_hi));
    const int64_t guess = lo + static_cast<int64_t>(guess_offset);
    const int64_t key_guess = key(guess);
    if (key_guess == x) {
      if (first_of(guess)) return &items[guess];
      break;
    }
    if (key_guess < x) {
      const uint64_t gap = Distance(key_guess, x);
      lo = guess + 1;
      if (gap < static_cast<uint64_t>(hi - guess)) hi = guess + static_cast<int64_t>(gap);
    } else {
      const uint64_t gap = Distance(x, key_guess);
      hi = guess - 1;
      if (gap < static_cast<uint64_t>(guess - lo)) lo = guess - static_cast<int64_t>(gap);
    }
  }
  const auto by_id = [](const T& item, Id v) { return item.id < v; };
  if (lo <= hi) {
    const auto it = std::lower_bound(items.begin() + lo, items.begin() + hi + 1, id, by_id);
    const int64_t k = it - items.begin();
    if (k <= hi && first_of(k)) return &items[k];
  }
  const auto it = std::lower_bound(items.begin(), items.end(), id, by_id);
  return it != items.end() && it->id == id ? &*it : nullptr;
}

}  // namespace

const Value* Program::FindValue(ValueId id) const { return FindById(values, id); }

const Allocation* Program::FindAllocation(AllocationId id) const {
  return FindById(allocations, id);
}

}  // namespace memplan::ir
