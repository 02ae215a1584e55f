// ir::Boxed: optional semantics in one pointer; copies share the value
// until one of them is written (then the writer gets its own).
#include "ir/boxed.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace memplan::ir {
namespace {

TEST(BoxedTest, ActsAsAnOptional) {
  Boxed<std::string> empty;
  EXPECT_FALSE(empty);
  EXPECT_TRUE(empty == std::nullopt);
  Boxed<std::string> a = std::string("x");
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, "x");
  EXPECT_FALSE(a == empty);
  a.reset();
  EXPECT_FALSE(a);
  EXPECT_EQ(a.emplace("yz"), "yz");
  const std::optional<std::string> as_optional = a;
  EXPECT_EQ(as_optional, "yz");
}

TEST(BoxedTest, CopiesShareUntilWrittenAndWritesStayPrivate) {
  Boxed<std::vector<int>> a = std::vector<int>{1, 2, 3};
  Boxed<std::vector<int>> b = a;
  const Boxed<std::vector<int>> c = a;
  EXPECT_TRUE(a.SharesValueWith(b));
  EXPECT_TRUE(a.SharesValueWith(c));
  // Reading through a const view keeps the sharing.
  const Boxed<std::vector<int>>& read_b = b;
  EXPECT_EQ(read_b->size(), 3u);
  EXPECT_TRUE(a.SharesValueWith(b));

  b->push_back(4);  // a write: b gets its own value first
  EXPECT_FALSE(a.SharesValueWith(b));
  EXPECT_TRUE(a.SharesValueWith(c));
  EXPECT_EQ(*a, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(*c, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(*b, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(a == c);

  // Sole owner: written in place, nothing copied.
  const std::vector<int>* before = &*std::as_const(b);
  (*b)[0] = 9;
  EXPECT_EQ(&*std::as_const(b), before);

  // Assignment shares; the old value of the target lives on in its other copies.
  Boxed<std::vector<int>> d = c;
  d = b;
  EXPECT_TRUE(d.SharesValueWith(b));
  EXPECT_EQ(*c, (std::vector<int>{1, 2, 3}));
  // Moving out of a shared value moves out of a private copy.
  std::vector<int> moved = *std::move(d);
  EXPECT_EQ(moved, (std::vector<int>{9, 2, 3, 4}));
  EXPECT_EQ(*b, (std::vector<int>{9, 2, 3, 4}));
}

TEST(BoxedTest, EqualValuesInSeparateBoxesCompareEqualButDoNotShare) {
  const Boxed<int> a = 5;
  const Boxed<int> b = 5;
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a.SharesValueWith(b));
}

}  // namespace
}  // namespace memplan::ir
