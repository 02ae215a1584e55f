// The hand-written parsers' line reader: every Consume* either consumes what
// it names or leaves the cursor where it was.
#include "parsers/cursor.h"

#include "gtest/gtest.h"

namespace memplan::parsers {
namespace {

TEST(Cursor, ConsumesLiteralsOrStaysPut) {
  Cursor c("allocation 3: size 16");
  EXPECT_TRUE(c.StartsWith("alloc"));
  EXPECT_FALSE(c.Consume("allocations"));
  EXPECT_EQ(c.rest(), "allocation 3: size 16");
  EXPECT_TRUE(c.Consume("allocation "));
  EXPECT_EQ(c.Peek(), '3');
  EXPECT_FALSE(c.ConsumeChar(':'));
  EXPECT_TRUE(c.ConsumeChar('3'));
  EXPECT_EQ(c.rest(), ": size 16");
}

TEST(Cursor, ConsumesIntegers) {
  Cursor c("42,-7,x");
  int64_t v = 0;
  EXPECT_TRUE(c.ConsumeInt(&v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(c.ConsumeChar(','));
  EXPECT_TRUE(c.ConsumeInt(&v));
  EXPECT_EQ(v, -7);
  EXPECT_TRUE(c.ConsumeChar(','));
  v = 99;
  EXPECT_FALSE(c.ConsumeInt(&v));
  EXPECT_EQ(v, 99);  // untouched on failure
  EXPECT_EQ(c.rest(), "x");
}

TEST(Cursor, RejectsALoneMinusAndOverflow) {
  int64_t v = 0;
  Cursor minus("-x");
  EXPECT_FALSE(minus.ConsumeInt(&v));
  EXPECT_EQ(minus.rest(), "-x");

  Cursor max("9223372036854775807]");
  EXPECT_TRUE(max.ConsumeInt(&v));
  EXPECT_EQ(v, INT64_C(9223372036854775807));
  EXPECT_EQ(max.rest(), "]");

  Cursor over("9223372036854775808]");
  EXPECT_FALSE(over.ConsumeInt(&v));
  EXPECT_EQ(over.rest(), "9223372036854775808]");
  Cursor way_over("123456789012345678901234567890");
  EXPECT_FALSE(way_over.ConsumeInt(&v));
}

TEST(Cursor, ConsumesUntilAStop) {
  Cursor c("p5.32.0{1} @0>");
  EXPECT_EQ(c.ConsumeUntilAny("{ >"), "p5.32.0");
  EXPECT_EQ(c.Peek(), '{');
  EXPECT_EQ(c.ConsumeUntil('@'), "{1} ");
  EXPECT_EQ(c.ConsumeUntil('#'), "@0>");  // no stop: the whole rest
  EXPECT_TRUE(c.AtEnd());
  EXPECT_EQ(c.Peek(), '\0');
}

TEST(Cursor, SkipsSpacesAndTabsAndAdvancesNoFurtherThanTheEnd) {
  Cursor c(" \t x");
  c.SkipSpaces();
  EXPECT_EQ(c.rest(), "x");
  c.Advance(10);
  EXPECT_TRUE(c.AtEnd());
}

TEST(Cursor, PositionPointsIntoTheOriginalText) {
  const std::string_view text = "abc def";
  Cursor c(text);
  c.Consume("abc ");
  EXPECT_EQ(c.position(), text.data() + 4);
}

}  // namespace
}  // namespace memplan::parsers
