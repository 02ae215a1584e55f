// parsers::NameTable against std::map as the independent truth: inline and
// long names, names that differ in one byte or only in length, growth from
// the smallest table, the first id of a name kept.
#include "parsers/name_table.h"

#include <cstring>
#include <memory>

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "parsers/load_bytes.h"

namespace memplan::parsers {
namespace {

TEST(NameTableTest, AgreesWithStdMapThroughGrowth) {
  NameTable table;
  std::map<std::string, int64_t> truth;
  for (int64_t i = 0; i < 50000; ++i) {
    // Lengths 1..60 (inline up to 23 bytes, longer ones kept in blocks);
    // names repeat every 40000 so some inserts find an earlier id.
    const int64_t k = i % 40000;
    std::string name = "fusion." + std::to_string(k);
    name.resize(1 + k % 60, static_cast<char>('a' + k % 26));
    const auto [it, inserted] = truth.emplace(name, i);
    EXPECT_EQ(table.Insert(name, i), it->second) << name;
  }
  EXPECT_EQ(table.size(), truth.size());
  for (const auto& [name, id] : truth) EXPECT_EQ(table.Find(name), id) << name;
  EXPECT_EQ(table.Find("fusion.40001"), -1);
  EXPECT_EQ(table.Find(std::string(30, 'x')), -1);
}

TEST(NameTableTest, EmptyAndOneByteApartNames) {
  NameTable table;
  table.Reserve(3);
  EXPECT_EQ(table.Find(""), -1);
  EXPECT_EQ(table.Insert("", 7), 7);
  EXPECT_EQ(table.Insert("a", 8), 8);
  EXPECT_EQ(table.Insert(std::string(24, 'b'), 9), 9);  // one past inline
  EXPECT_EQ(table.Insert(std::string(23, 'b'), 10), 10);
  EXPECT_EQ(table.Find(""), 7);
  EXPECT_EQ(table.Find("a"), 8);
  EXPECT_EQ(table.Find("b"), -1);
  EXPECT_EQ(table.Find(std::string(24, 'b')), 9);
  EXPECT_EQ(table.Find(std::string(23, 'b')), 10);
  EXPECT_EQ(table.Find(std::string(25, 'b')), -1);
  EXPECT_EQ(table.Insert("a", 11), 8);  // the first id stays
}

// LoadUpTo8 against memcpy into a zeroed word, for every length 0..8 and
// bytes that differ at every position (high bits set too, to catch sign
// extension). Each text is a heap block of exactly n bytes, so a read
// outside it is an error under ASan (scripts/sanitize.sh).
TEST(NameTableTest, LoadUpTo8IsMemcpyOfNBytes) {
  for (size_t n = 0; n <= 8; ++n) {
    for (int seed = 0; seed < 64; ++seed) {
      auto bytes = std::make_unique<char[]>(n == 0 ? 1 : n);
      for (size_t i = 0; i < n; ++i) {
        bytes[i] = static_cast<char>(0x11 * (i + 1) + 37 * seed + (seed % 2 ? 0x80 : 0));
      }
      uint64_t expected = 0;
      std::memcpy(&expected, bytes.get(), n);
      EXPECT_EQ(LoadUpTo8(bytes.get(), n), expected) << "n=" << n << " seed=" << seed;
    }
  }
}

}  // namespace
}  // namespace memplan::parsers
