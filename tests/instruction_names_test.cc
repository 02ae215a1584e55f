// InstructionNames::Described, which lets the dump parser skip working out
// the facts of an instruction Describe would not change.
#include <gtest/gtest.h>

#include "ir/module.h"
#include "parsers/instruction_names.h"

namespace memplan::parsers {
namespace {

ir::Shape F32(int64_t n) {
  ir::Shape shape;
  shape.dtype = ir::DType::kF32;
  shape.dims = {n};
  return shape;
}

InstructionFacts Facts(std::string_view opcode, std::string_view op_name, ir::Shape shape) {
  InstructionFacts facts;
  facts.opcode = opcode;
  facts.metadata.op_name = op_name;
  facts.shape = std::move(shape);
  return facts;
}

TEST(InstructionNames, DescribedOnlyOnceOpcodeMetadataAndShapeAreKnown) {
  ir::Module module;
  InstructionNames names(module);
  const ir::InstructionId id = names.Resolve("fusion.1");
  EXPECT_FALSE(names.Described(id));
  names.Describe(id, Facts("fusion", "", F32(4)));  // no metadata yet
  EXPECT_FALSE(names.Described(id));
  names.Describe(id, Facts("add", "jit(f)/add", F32(8)));  // only the metadata is new
  EXPECT_TRUE(names.Described(id));
  const ir::Instruction& instruction = module.instruction(id);
  EXPECT_EQ(instruction.opcode_text, "fusion");
  EXPECT_EQ(instruction.metadata->op_name, "jit(f)/add");
  EXPECT_EQ(instruction.shape->dims, std::vector<int64_t>{4});
  // Described: another Describe changes nothing.
  names.Describe(id, Facts("multiply", "other", F32(16)));
  EXPECT_EQ(module.instruction(id).opcode_text, "fusion");
  EXPECT_EQ(module.instruction(id).metadata->op_name, "jit(f)/add");
  EXPECT_EQ(module.instruction(id).shape->dims, std::vector<int64_t>{4});
}

TEST(InstructionNames, NotDescribedWithoutAShape) {
  ir::Module module;
  InstructionNames names(module);
  const ir::InstructionId id = names.Resolve("p.0");
  InstructionFacts facts = Facts("parameter", "x", F32(1));
  facts.shape.reset();
  names.Describe(id, facts);
  EXPECT_FALSE(names.Described(id));
  names.Describe(id, Facts("parameter", "y", F32(2)));
  EXPECT_TRUE(names.Described(id));
  EXPECT_EQ(module.instruction(id).metadata->op_name, "x");
  EXPECT_EQ(module.instruction(id).shape->dims, std::vector<int64_t>{2});
}

}  // namespace
}  // namespace memplan::parsers
