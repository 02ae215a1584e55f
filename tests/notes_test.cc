// ir::NoteCodeName: every note code has its own stable keyword (JSON's
// "code"); none falls through to "unknown". (The loop ends at the last
// enumerator of ir/notes.h; a code added after it must move that bound.)
#include "ir/notes.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace memplan::ir {
namespace {

TEST(NoteCodeNameTest, EveryCodeHasItsOwnKeyword) {
  std::set<std::string> seen;
  for (int c = 0; c <= static_cast<int>(NoteCode::kReportRoundedValueSizes); ++c) {
    const std::string name(NoteCodeName(static_cast<NoteCode>(c)));
    EXPECT_NE(name, "unknown") << "code " << c;
    EXPECT_TRUE(seen.insert(name).second) << "code " << c << " repeats " << name;
    for (char ch : name) EXPECT_TRUE((ch >= 'a' && ch <= 'z') || ch == '-') << name;
  }
  EXPECT_EQ(NoteCodeName(NoteCode::kModuleWithoutBufferAssignment),
            "module-without-buffer-assignment");
}

}  // namespace
}  // namespace memplan::ir
