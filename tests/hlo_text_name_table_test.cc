// parsers/hlo_text_name_table.h: names map to the ids they were inserted
// with through rehashing, a repeated name is refused, the table keeps
// copies (the caller's text can change or go), and Clear empties it.
#include "parsers/hlo_text_name_table.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "ir/ids.h"

namespace memplan::parsers::hlo_text {
namespace {

TEST(InstructionNameTable, FindsEveryNameThroughRehashing) {
  InstructionNameTable table;
  for (int k = 0; k < 5000; ++k) {
    ASSERT_TRUE(table.Insert("n" + std::to_string(k), ir::InstructionId(3 * k + 1)));
  }
  EXPECT_EQ(table.size(), 5000u);
  for (int k = 0; k < 5000; ++k) {
    EXPECT_EQ(table.Find("n" + std::to_string(k)), ir::InstructionId(3 * k + 1)) << k;
  }
  EXPECT_FALSE(table.Find("n5000").valid());
  EXPECT_FALSE(table.Find("n").valid());
  EXPECT_FALSE(table.Find("").valid());
}

TEST(InstructionNameTable, RefusesARepeatAndKeepsTheFirstId) {
  InstructionNameTable table;
  EXPECT_TRUE(table.Insert("add.1", ir::InstructionId(7)));
  EXPECT_FALSE(table.Insert("add.1", ir::InstructionId(8)));
  EXPECT_EQ(table.Find("add.1"), ir::InstructionId(7));
  EXPECT_EQ(table.size(), 1u);
}

TEST(InstructionNameTable, ComparesWholeNamesByLength) {
  InstructionNameTable table;
  const std::string with_nul_b("a\0b", 3);
  const std::string with_nul_c("a\0c", 3);
  EXPECT_TRUE(table.Insert("a", ir::InstructionId(1)));
  EXPECT_TRUE(table.Insert("ab", ir::InstructionId(2)));
  EXPECT_TRUE(table.Insert(with_nul_b, ir::InstructionId(3)));
  EXPECT_EQ(table.Find("a"), ir::InstructionId(1));
  EXPECT_EQ(table.Find("ab"), ir::InstructionId(2));
  EXPECT_EQ(table.Find(with_nul_b), ir::InstructionId(3));
  EXPECT_FALSE(table.Find(with_nul_c).valid());
  EXPECT_FALSE(table.Find("abc").valid());
}

TEST(InstructionNameTable, KeepsCopiesOfTheNames) {
  InstructionNameTable table;
  std::string text = "first";
  ASSERT_TRUE(table.Insert(text, ir::InstructionId(4)));
  // A name longer than a copy block, then more after it.
  std::string long_name(100000, 'x');
  ASSERT_TRUE(table.Insert(long_name, ir::InstructionId(5)));
  ASSERT_TRUE(table.Insert("after", ir::InstructionId(6)));
  text.assign("XXXXX");
  long_name[50000] = 'y';
  EXPECT_EQ(table.Find("first"), ir::InstructionId(4));
  EXPECT_FALSE(table.Find(text).valid());
  EXPECT_EQ(table.Find(std::string(100000, 'x')), ir::InstructionId(5));
  EXPECT_FALSE(table.Find(long_name).valid());
  EXPECT_EQ(table.Find("after"), ir::InstructionId(6));
}

TEST(InstructionNameTable, ClearEmptiesItForTheNextComputation) {
  InstructionNameTable table;
  ASSERT_TRUE(table.Insert("p", ir::InstructionId(0)));
  table.Clear();
  EXPECT_EQ(table.size(), 0u);
  EXPECT_FALSE(table.Find("p").valid());
  EXPECT_TRUE(table.Insert("p", ir::InstructionId(9)));
  EXPECT_EQ(table.Find("p"), ir::InstructionId(9));
}

}  // namespace
}  // namespace memplan::parsers::hlo_text
