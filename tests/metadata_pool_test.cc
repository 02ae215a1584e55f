// ir::MetadataPool: empty metadata stored nowhere, a repeat of the last
// record shared with it, other records apart (also equal ones further
// back: the pool does not look them up), and copies of a pool that keep
// the records made before the copy while storing new ones of their own.
#include "ir/metadata_pool.h"

#include <memory>
#include <string_view>
#include <utility>

#include "gtest/gtest.h"
#include "ir/module.h"

namespace memplan::ir {
namespace {

OpMetadata Meta(std::string_view op_type, std::string_view op_name, int64_t frame = 0) {
  OpMetadata m;
  m.op_type = op_type;
  m.op_name = op_name;
  m.stack_frame_id = frame;
  return m;
}

TEST(MetadataPoolTest, EmptyTakesNoRecordARepeatOfTheLastSharesIt) {
  MetadataPool pool;
  const SharedMetadata none = pool.Store(OpMetadata());
  EXPECT_EQ(none.get(), SharedMetadata().get());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(pool.size(), 0u);

  const SharedMetadata a = pool.Store(Meta("add", "jit(f)/add", 3));
  const SharedMetadata again = pool.Store(Meta("add", "jit(f)/add", 3));
  EXPECT_EQ(a.get(), again.get());
  EXPECT_EQ(pool.size(), 1u);
  // Each field tells records apart.
  EXPECT_NE(a.get(), pool.Store(Meta("add", "jit(f)/add", 4)).get());
  EXPECT_NE(a.get(), pool.Store(Meta("add", "jit(f)/mul", 3)).get());
  EXPECT_NE(a.get(), pool.Store(Meta("mul", "jit(f)/add", 3)).get());
  OpMetadata line = Meta("add", "jit(f)/add", 3);
  line.source_line = 7;
  const SharedMetadata with_line = pool.Store(line);
  EXPECT_EQ(with_line->source_line, 7);
  OpMetadata only_line;  // not empty(): a source line alone is kept
  only_line.source_line = 9;
  EXPECT_EQ(pool.Store(only_line)->source_line, 9);
  EXPECT_EQ(pool.size(), 6u);
  // Read back as stored.
  EXPECT_EQ(a->op_type, "add");
  EXPECT_EQ(a->op_name, "jit(f)/add");
  EXPECT_EQ(a->stack_frame_id, 3);
  const OpMetadata& as_reference = a;
  EXPECT_EQ(as_reference, Meta("add", "jit(f)/add", 3));
  // Views compare by content.
  EXPECT_TRUE(a == SharedMetadata(&as_reference));
  EXPECT_FALSE(a == with_line);
}

TEST(MetadataPoolTest, RecordsStayPutAsThePoolGrows) {
  MetadataPool pool;
  const SharedMetadata first = pool.Store(Meta("first", "f"));
  const OpMetadata* address = first.get();
  for (int k = 0; k < 5000; ++k) pool.Store(Meta("x", "n", k + 1));
  EXPECT_EQ(first.get(), address);
  EXPECT_EQ(first->op_type, "first");
  EXPECT_EQ(pool.size(), 5001u);
}

TEST(MetadataPoolTest, CopiesKeepEarlierRecordsAndStoreNewOnesApart) {
  auto original = std::make_unique<MetadataPool>();
  const SharedMetadata a = original->Store(Meta("add", "a"));
  MetadataPool copy = *original;
  // A repeat of the original's last record in the copy gets the copy's
  // own record: the copy never writes to (or hands out) shared storage
  // for what it stores after the copy.
  const SharedMetadata in_copy = copy.Store(Meta("add", "a"));
  EXPECT_EQ(*in_copy, *a);
  EXPECT_NE(in_copy.get(), a.get());
  EXPECT_EQ(copy.size(), 1u);
  const SharedMetadata b = original->Store(Meta("mul", "b"));
  original.reset();  // the copy keeps the original's records alive
  EXPECT_EQ(a->op_type, "add");
  EXPECT_EQ(b->op_type, "mul");  // stored after the copy, in storage the copy shares
  EXPECT_EQ(copy.Store(Meta("sub", "c"))->op_type, "sub");
}

TEST(MetadataPoolTest, ModuleStoresInstructionsMetadataAndCopiesAreIndependent) {
  Module module;
  Instruction i;
  i.name = "x";
  i.metadata = module.StoreMetadata(Meta("neg", "jit(f)/neg"));
  const InstructionId id = module.AddInstruction(i);
  Module copy = module;
  copy.mutable_instruction(id).metadata = copy.StoreMetadata(Meta("abs", "jit(f)/abs"));
  EXPECT_EQ(module.instruction(id).metadata->op_type, "neg");
  EXPECT_EQ(copy.instruction(id).metadata->op_type, "abs");
}

}  // namespace
}  // namespace memplan::ir
