// ir/huge_pages.h: advising huge pages and giving back unused capacity
// change how memory is backed, never what the program reads from it.
#include "ir/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "ir/module.h"

namespace memplan::ir {
namespace {

TEST(HugePages, AdvisedVectorKeepsWhatIsWrittenAndReleasedTailRegrows) {
  std::vector<int64_t> items;
  items.reserve(3 << 20);  // 24 MiB: several whole 2 MiB blocks
  AdviseHugePages(items);
  const size_t written = (1 << 20) + 12345;  // ends inside a block
  for (size_t i = 0; i < written; ++i) items.push_back(static_cast<int64_t>(i * 7 + 1));
  const int64_t* data = items.data();
  ReleaseUnusedCapacity(items);
  ASSERT_EQ(items.data(), data);
  ASSERT_EQ(items.size(), written);
  for (size_t i = 0; i < written; ++i) ASSERT_EQ(items[i], static_cast<int64_t>(i * 7 + 1)) << i;
  // Growing into the given-back capacity writes fresh pages.
  for (size_t i = written; i < 2 * written; ++i) items.push_back(-static_cast<int64_t>(i));
  EXPECT_EQ(items.data(), data);
  for (size_t i = 0; i < written; ++i) ASSERT_EQ(items[i], static_cast<int64_t>(i * 7 + 1)) << i;
  for (size_t i = written; i < 2 * written; ++i) ASSERT_EQ(items[i], -static_cast<int64_t>(i)) << i;
}

TEST(HugePages, ReleaseKeepsBytesOutsideTheRangeAndPartialPages) {
  constexpr size_t kBytes = size_t{5} << 20;
  std::unique_ptr<unsigned char[]> block(new unsigned char[kBytes]);
  for (size_t i = 0; i < kBytes; ++i) block[i] = static_cast<unsigned char>(i * 31 + 7);
  // A range that starts and ends inside pages: those two pages keep every
  // byte, in the range or not; whole pages inside it read zero.
  const size_t begin = 4096 * 3 + 100;
  const size_t end = kBytes - 4096 * 2 - 100;
  ReleaseUnusedBytes(block.get() + begin, block.get() + end);
  const uintptr_t base = reinterpret_cast<uintptr_t>(block.get());
  for (size_t i = 0; i < kBytes; ++i) {
    const uintptr_t at = base + i;
    const bool whole_page_inside =
        at / 4096 * 4096 >= base + begin && (at / 4096 + 1) * 4096 <= base + end;
    if (i < begin || i >= end) {
      ASSERT_EQ(block[i], static_cast<unsigned char>(i * 31 + 7)) << i;
    } else if (!whole_page_inside) {
      ASSERT_EQ(block[i], static_cast<unsigned char>(i * 31 + 7)) << i;
    }
  }
  // Empty and reversed ranges do nothing.
  ReleaseUnusedBytes(block.get() + 10, block.get() + 10);
  ReleaseUnusedBytes(block.get() + 20, block.get() + 10);
  EXPECT_EQ(block[10], static_cast<unsigned char>(10 * 31 + 7));
}

TEST(HugePages, ModuleReserveAdviseAndReleaseKeepInstructions) {
  Module module;
  module.Reserve(100000, 0);
  module.AdviseHugePages();
  for (int i = 0; i < 20000; ++i) {
    Instruction instruction;
    instruction.name = i % 2 == 0 ? "even" : "odd";
    instruction.shape.dims = {i, i + 1};
    module.AddInstruction(std::move(instruction));
  }
  module.ReleaseUnusedCapacity();
  ASSERT_EQ(module.instruction_count(), 20000u);
  for (int i = 0; i < 20000; ++i) {
    const Instruction& instruction = module.instruction(InstructionId(i));
    ASSERT_EQ(instruction.name, i % 2 == 0 ? "even" : "odd");
    ASSERT_EQ(instruction.shape.dims, (std::vector<int64_t>{i, i + 1}));
  }
}

}  // namespace
}  // namespace memplan::ir
