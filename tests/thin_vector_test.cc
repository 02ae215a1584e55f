// ir::ThinVector: one pointer wide, empty without a heap block, and the
// std::vector operations the IR uses behave as std::vector's (checked
// against a std::vector doing the same).
#include "ir/thin_vector.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace memplan::ir {
namespace {

TEST(ThinVectorTest, OnePointerWideAndEmptyWithoutABlock) {
  static_assert(sizeof(ThinVector<int64_t>) == sizeof(void*));
  ThinVector<int64_t> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.data(), nullptr);
  EXPECT_EQ(v.begin(), v.end());
  ThinVector<int64_t> copy = v;
  EXPECT_EQ(copy.data(), nullptr);
  v.push_back(1);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.data(), nullptr);
}

TEST(ThinVectorTest, GrowsLikeAVector) {
  ThinVector<int64_t> thin;
  std::vector<int64_t> wide;
  for (int64_t k = 0; k < 1000; ++k) {
    thin.push_back(k * 7 - 3);
    wide.push_back(k * 7 - 3);
    ASSERT_EQ(thin.size(), wide.size());
    ASSERT_GE(thin.capacity(), thin.size());
  }
  EXPECT_TRUE(thin == wide);
  EXPECT_EQ(thin.front(), wide.front());
  EXPECT_EQ(thin.back(), wide.back());
  EXPECT_EQ(thin.ToVector(), wide);
  thin.push_back(thin[0]);  // an element of itself, across a reallocation or not
  EXPECT_EQ(thin.back(), -3);
}

TEST(ThinVectorTest, CopiesAndMovesAreIndependent) {
  ThinVector<std::pair<int64_t, int64_t>> a{{0, 1}, {1, 2}};
  ThinVector<std::pair<int64_t, int64_t>> b = a;
  b.emplace_back(2, 3);
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_FALSE(a == b);
  ThinVector<std::pair<int64_t, int64_t>> c = std::move(b);
  EXPECT_TRUE(b.empty());  // NOLINT: moved-from is empty, as documented by the type
  EXPECT_EQ(c.back(), std::make_pair(int64_t{2}, int64_t{3}));
  a = c;
  EXPECT_TRUE(a == c);
  a = std::vector<std::pair<int64_t, int64_t>>{};
  EXPECT_TRUE(a.empty());
}

TEST(ThinVectorTest, EditsMatchAVector) {
  ThinVector<int64_t> thin{5, 6, 7};
  std::vector<int64_t> wide{5, 6, 7};
  thin.insert(thin.begin() + 1, 9);
  wide.insert(wide.begin() + 1, 9);
  EXPECT_TRUE(thin == wide);
  thin.erase(thin.begin());
  wide.erase(wide.begin());
  EXPECT_TRUE(thin == wide);
  thin.resize(6, 4);
  wide.resize(6, 4);
  EXPECT_TRUE(thin == wide);
  thin.resize(2);
  wide.resize(2);
  EXPECT_TRUE(thin == wide);
  const int64_t raw[] = {1, 2, 3, 4, 5};
  thin.assign(raw, raw + 5);
  wide.assign(raw, raw + 5);
  EXPECT_TRUE(thin == wide);
  thin.pop_back();
  wide.pop_back();
  EXPECT_TRUE(thin == wide);
  EXPECT_EQ(std::vector<int64_t>(thin.rbegin(), thin.rend()),
            std::vector<int64_t>(wide.rbegin(), wide.rend()));
}

}  // namespace
}  // namespace memplan::ir
