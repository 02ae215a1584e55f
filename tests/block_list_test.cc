// ir::BlockList: elements keep their address as others are appended, and
// copies and moves carry the elements (non-trivial ones included).
#include "ir/block_list.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace memplan::ir {
namespace {

TEST(BlockListTest, ElementsNeverMove) {
  BlockList<std::string, 4> list;
  std::vector<const std::string*> addresses;
  for (int k = 0; k < 37; ++k) {
    addresses.push_back(&list.emplace_back(std::string(40, static_cast<char>('a' + k % 26))));
  }
  ASSERT_EQ(list.size(), 37u);
  for (size_t k = 0; k < addresses.size(); ++k) {
    EXPECT_EQ(&list[k], addresses[k]);
    EXPECT_EQ(list[k], std::string(40, static_cast<char>('a' + k % 26)));
  }
}

TEST(BlockListTest, CopiesAndMovesCarryTheElements) {
  BlockList<std::vector<int>, 2> a;
  for (int k = 0; k < 5; ++k) a.emplace_back(k + 1, k);
  BlockList<std::vector<int>, 2> b = a;
  b[0].push_back(9);
  EXPECT_EQ(a[0].size(), 1u);
  EXPECT_EQ(b[0].size(), 2u);
  BlockList<std::vector<int>, 2> c = std::move(b);
  EXPECT_TRUE(b.empty());  // NOLINT: a moved-from list is empty
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[4], std::vector<int>(5, 4));
  a = c;
  EXPECT_EQ(a[0].size(), 2u);
  b.emplace_back(3, 3);  // a moved-from list can be used again
  EXPECT_EQ(b.size(), 1u);
}

}  // namespace
}  // namespace memplan::ir
