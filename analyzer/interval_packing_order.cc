#include "analyzer/interval_packing_order.h"

#include <algorithm>
#include <array>
#include <climits>
#include <memory>
#include <utility>

namespace memplan::analyzer {
namespace {

// Sorts `items` by (hi, lo), stably: a least-significant-digit radix sort a
// byte at a time, skipping the bytes every item shares (sizes, lifetimes and
// ids use a few of each word's eight).
template <typename Item>
void RadixSortByKey(std::vector<Item>& items) {
  constexpr int kDigits = 16;  // lo's 8 bytes, then hi's
  std::vector<std::array<uint32_t, 256>> count(kDigits);
  for (auto& c : count) c.fill(0);
  auto digit = [](const Item& item, int d) {
    const uint64_t word = d < 8 ? item.lo : item.hi;
    return static_cast<size_t>((word >> (8 * (d % 8))) & 255);
  };
  for (const Item& item : items) {
    for (int d = 0; d < kDigits; ++d) ++count[static_cast<size_t>(d)][digit(item, d)];
  }
  std::vector<Item> scratch(items.size());
  for (int d = 0; d < kDigits; ++d) {
    std::array<uint32_t, 256>& c = count[static_cast<size_t>(d)];
    if (c[digit(items.front(), d)] == items.size()) continue;  // all share this byte
    uint32_t sum = 0;
    for (uint32_t& bucket : c) {
      const uint32_t here = bucket;
      bucket = sum;
      sum += here;
    }
    for (const Item& item : items) scratch[c[digit(item, d)]++] = item;
    items.swap(scratch);
  }
}

// (first, second, id) as two 64-bit words ordered alike, when first and
// second fit 32 bits and ids are >= 0 (offset by INT32_MIN so negative
// values order below positive ones); false otherwise.
bool SortTwoWords(const std::vector<OrderKey>& keys, std::vector<int32_t>& roots) {
  for (const OrderKey& k : keys) {
    if (k.first < INT32_MIN || k.first > INT32_MAX || k.second < INT32_MIN ||
        k.second > INT32_MAX || k.id < 0) {
      return false;
    }
  }
  struct Packed {
    uint64_t hi;  // first, second
    uint64_t lo;  // id
    int32_t root;
  };
  std::vector<Packed> packed(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    packed[i] = {(static_cast<uint64_t>(keys[i].first - INT32_MIN) << 32) |
                     static_cast<uint64_t>(keys[i].second - INT32_MIN),
                 static_cast<uint64_t>(keys[i].id), keys[i].root};
  }
  RadixSortByKey(packed);
  for (size_t i = 0; i < packed.size(); ++i) roots[i] = packed[i].root;
  return true;
}

// Bits needed for values 0..range.
int BitsFor(uint64_t range) { return range == 0 ? 0 : 64 - __builtin_clzll(range); }

// `word` shifted up by `bits` with `value` (< 2^bits) below; a shift by 64
// only comes with an empty word.
uint64_t Append(uint64_t word, int bits, uint64_t value) {
  if (bits == 0) return word;
  return bits == 64 ? value : (word << bits) | value;
}

// Each field less its minimum, side by side in one word (first highest),
// when the three fit 64 bits together: the word orders as the key does.
// Sorted by 11-bit digits (2,048 counters, 8 KiB: they stay in L1), a digit
// every item shares skipped. False when they do not fit.
bool SortOneWord(const std::vector<OrderKey>& keys, OrderScratch& work) {
  std::vector<int32_t>& roots = work.roots;
  OrderKey lo = keys.front(), hi = keys.front();
  for (const OrderKey& k : keys) {
    lo.first = std::min(lo.first, k.first), hi.first = std::max(hi.first, k.first);
    lo.second = std::min(lo.second, k.second), hi.second = std::max(hi.second, k.second);
    lo.id = std::min(lo.id, k.id), hi.id = std::max(hi.id, k.id);
  }
  auto range = [](int64_t a, int64_t b) { return static_cast<uint64_t>(b) - static_cast<uint64_t>(a); };
  // Low bits every first field shares above its minimum (sizes are often
  // multiples of a power of two) are shifted out: the order stays.
  uint64_t first_bits_used = 0;
  for (const OrderKey& k : keys) first_bits_used |= range(lo.first, k.first);
  const int first_shift = first_bits_used == 0 ? 0 : __builtin_ctzll(first_bits_used);
  const int id_bits = BitsFor(range(lo.id, hi.id));
  const int second_bits = BitsFor(range(lo.second, hi.second));
  const int bits = BitsFor(range(lo.first, hi.first) >> first_shift) + second_bits + id_bits;
  if (bits > 64) return false;
  // Reused (every slot is written before it is read).
  std::vector<SortWord>& items = work.items;
  std::vector<SortWord>& scratch = work.spare;
  const size_t n = keys.size();
  items.resize(n);
  scratch.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const OrderKey& k = keys[i];
    uint64_t word = range(lo.first, k.first) >> first_shift;
    word = Append(word, second_bits, range(lo.second, k.second));
    word = Append(word, id_bits, range(lo.id, k.id));
    items[i] = {word, k.root};
  }
  constexpr int kDigitBits = 11;
  constexpr size_t kBuckets = size_t{1} << kDigitBits;
  const int digits = (bits + kDigitBits - 1) / kDigitBits;
  std::vector<uint32_t> count(static_cast<size_t>(digits) * kBuckets, 0);
  for (size_t i = 0; i < n; ++i) {
    for (int d = 0; d < digits; ++d) {
      ++count[static_cast<size_t>(d) * kBuckets + ((items[i].key >> (kDigitBits * d)) & (kBuckets - 1))];
    }
  }
  for (int d = 0; d < digits; ++d) {
    uint32_t* c = &count[static_cast<size_t>(d) * kBuckets];
    const int shift = kDigitBits * d;
    if (c[(items[0].key >> shift) & (kBuckets - 1)] == n) continue;
    uint32_t sum = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      const uint32_t here = c[b];
      c[b] = sum;
      sum += here;
    }
    for (size_t i = 0; i < n; ++i) scratch[c[(items[i].key >> shift) & (kBuckets - 1)]++] = items[i];
    items.swap(scratch);
  }
  for (size_t i = 0; i < n; ++i) roots[i] = items[i].root;
  return true;
}

}  // namespace

std::vector<int32_t> SortedRoots(std::vector<OrderKey>& keys) {
  OrderScratch scratch;
  SortedRoots(keys, scratch);
  return std::move(scratch.roots);
}

const std::vector<int32_t>& SortedRoots(std::vector<OrderKey>& keys, OrderScratch& scratch) {
  std::vector<int32_t>& roots = scratch.roots;
  roots.resize(keys.size());
  if (keys.size() > 256 && (SortOneWord(keys, scratch) || SortTwoWords(keys, roots))) return roots;
  std::sort(keys.begin(), keys.end(), [](const OrderKey& a, const OrderKey& b) {
    if (a.first != b.first) return a.first < b.first;
    if (a.second != b.second) return a.second < b.second;
    return a.id < b.id;
  });
  for (size_t i = 0; i < keys.size(); ++i) roots[i] = keys[i].root;
  return roots;
}

}  // namespace memplan::analyzer
