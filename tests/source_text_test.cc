// SourceText: mapped input, locations, and releasing parsed pages.
#include "parsers/source_text.h"

#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace memplan::parsers {
namespace {

std::string PatternText(size_t bytes) {
  std::string text;
  text.reserve(bytes);
  for (size_t i = 0; text.size() < bytes; ++i) text += "line " + std::to_string(i) + "\n";
  return text;
}

// Releasing the resident pages of a mapped file must not change what the
// views read: the pages come back from the file.
TEST(SourceText, ReleasedPagesReadBackTheSameBytes) {
  test::TempDir dir;
  const std::string path = dir.File("big.txt");
  const std::string expected = PatternText(8 << 20);  // large enough to be mapped
  std::ofstream(path, std::ios::binary) << expected;
  auto source = SourceText::FromFile(path);
  ASSERT_TRUE(source.ok()) << source.status();
  const std::string_view text = (*source)->text();
  ASSERT_EQ(text.size(), expected.size());
  (*source)->ReleaseResident(text.data(), text.data() + text.size());
  EXPECT_TRUE(text == expected);
}

// An in-memory buffer is never released (madvise would zero heap memory).
TEST(SourceText, ReleaseLeavesCopiedTextAlone) {
  const std::string expected = PatternText(1 << 20);
  auto source = SourceText::FromString("inline", expected);
  source->ReleaseResident(source->text().data(), source->text().data() + source->text().size());
  EXPECT_TRUE(source->text() == expected);
}

TEST(SourceText, LocatesLineAndColumn) {
  auto source = SourceText::FromString("f.txt", "ab\ncde\n");
  EXPECT_EQ(source->LocationString(size_t{4}), "f.txt:2:2");
  EXPECT_EQ(source->LocationString(size_t{0}), "f.txt:1:1");
  const absl::Status error = source->ErrorAt(source->text().data() + 4, "expected x");
  EXPECT_NE(std::string(error.message()).find("f.txt:2:2: error: expected x"), std::string::npos)
      << error.message();
}

}  // namespace
}  // namespace memplan::parsers
