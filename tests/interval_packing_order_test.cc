// analyzer::SortedRoots (the packer's placement order) against std::sort on
// the same keys: fields of every width (one word, two words, neither),
// negative values, shared fields and shuffled ids.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "analyzer/interval_packing_order.h"
#include "gtest/gtest.h"

namespace memplan::test {
namespace {

using analyzer::OrderKey;

uint64_t Next(uint64_t& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 11;
}

std::vector<int32_t> Expected(std::vector<OrderKey> keys) {
  std::sort(keys.begin(), keys.end(), [](const OrderKey& a, const OrderKey& b) {
    if (a.first != b.first) return a.first < b.first;
    if (a.second != b.second) return a.second < b.second;
    return a.id < b.id;
  });
  std::vector<int32_t> roots;
  for (const OrderKey& k : keys) roots.push_back(k.root);
  return roots;
}

// A field drawn from `span` values above `base` (span 0: always base).
int64_t Draw(uint64_t& state, int64_t base, uint64_t span) {
  return span == 0 ? base : static_cast<int64_t>(static_cast<uint64_t>(base) + Next(state) % span);
}

TEST(SortedRoots, EqualsStdSortForEveryFieldWidth) {
  struct Case {
    int64_t first_base;
    uint64_t first_span;
    int64_t second_base;
    uint64_t second_span;
    int64_t id_base;
    bool ids_spread;  // ids multiplied apart (wider than the count)
  };
  const std::vector<Case> cases = {
      {-524288, 524288, -5, 6, 0, false},           // the packer's: one word, few bits
      {-3, 4, -5, 6, 0, false},                     // many equal (first, second): ids decide
      {7, 0, 7, 0, 100, false},                     // only ids vary
      {INT32_MIN, 1ull << 32, -100, 200, 0, true},  // 32 + 8 + 40 bits: two words
      {INT64_MIN / 2, 1ull << 62, 0, 3, 0, false},  // past 32 bits: std::sort
      {-(int64_t{1} << 40), 1ull << 41, INT32_MIN, 1ull << 20, -50, false},  // negative ids
      {0, 2048, 0, 2048, 0, false},                 // digits on 11-bit boundaries
      {-(int64_t{1} << 30), 1ull << 20, -5, 6, 0, false},  // first: multiples below (scaled)
  };
  uint64_t state = 12345;
  for (size_t c = 0; c < cases.size(); ++c) {
    for (size_t n : {size_t{200}, size_t{3000}, size_t{20000}}) {
      const Case& k = cases[c];
      std::vector<int64_t> ids(n);
      for (size_t i = 0; i < n; ++i) {
        ids[i] = k.id_base + static_cast<int64_t>(i) * (k.ids_spread ? (int64_t{1} << 24) + 7 : 1);
      }
      for (size_t i = n; i > 1; --i) std::swap(ids[i - 1], ids[Next(state) % i]);
      std::vector<OrderKey> keys(n);
      for (size_t i = 0; i < n; ++i) {
        keys[i] = {Draw(state, k.first_base, k.first_span), Draw(state, k.second_base, k.second_span),
                   ids[i], static_cast<int32_t>(i)};
        // The last case's first fields: multiples of 1,024 (low bits shared).
        if (c + 1 == cases.size()) keys[i].first *= 1024;
      }
      const std::vector<int32_t> expected = Expected(keys);
      EXPECT_EQ(analyzer::SortedRoots(keys), expected) << "case " << c << ", " << n << " keys";
    }
  }
}

// The extremes of int64 in every field: ranges of 64 bits in one field.
TEST(SortedRoots, FullRangeFieldsKeepTheOrder) {
  uint64_t state = 99;
  for (int field = 0; field < 3; ++field) {
    std::vector<OrderKey> keys(1000);
    for (size_t i = 0; i < keys.size(); ++i) {
      const int64_t wide = static_cast<int64_t>(Next(state) << 11) ^ static_cast<int64_t>(Next(state));
      keys[i] = {field == 0 ? wide : 1, field == 1 ? wide : 2,
                 field == 2 ? wide : static_cast<int64_t>(i), static_cast<int32_t>(i)};
    }
    keys[0].first = field == 0 ? INT64_MIN : 1;
    keys[1].second = field == 1 ? INT64_MAX : 2;
    const std::vector<int32_t> expected = Expected(keys);
    EXPECT_EQ(analyzer::SortedRoots(keys), expected) << "field " << field;
  }
}

}  // namespace
}  // namespace memplan::test
