// Reading name, opcode and metadata out of one HLO instruction's text.
#include "parsers/hlo_instruction_text.h"

#include "gtest/gtest.h"

namespace memplan::parsers {
namespace {

TEST(InstructionText, NameOpcodeAndMetadata) {
  InstructionText t;
  ASSERT_TRUE(ParseInstructionText(
      "%p44.801.0 = bf16[2,4233]{1,0} parameter(44), metadata={op_type=\"xla__device_data\" "
      "op_name=\"jit(f)/dot\" source_file=\"/a/b.py\" source_line=355}",
      &t));
  EXPECT_EQ(t.name, "p44.801.0");
  EXPECT_EQ(t.opcode, "parameter");
  EXPECT_EQ(t.metadata.op_type, "xla__device_data");
  EXPECT_EQ(t.metadata.op_name, "jit(f)/dot");
  EXPECT_EQ(t.metadata.source_file, "/a/b.py");
  EXPECT_EQ(t.metadata.source_line, 355);
}

TEST(InstructionText, WithoutPercent) {
  InstructionText t;
  ASSERT_TRUE(ParseInstructionText(
      "Arg_0.1 = bf16[256,2048]{1,0:T(8,128)(2,1)} parameter(0), sharding={devices=[4,1]<=[4]}",
      &t));
  EXPECT_EQ(t.name, "Arg_0.1");
  EXPECT_EQ(t.opcode, "parameter");
  EXPECT_TRUE(t.metadata.empty());
}

TEST(InstructionText, RootAndTupleShapeWithIndexComments) {
  InstructionText t;
  ASSERT_TRUE(ParseInstructionText(
      "ROOT %tuple = (f32[512,512]{1,0}, f32[512]{0}, f32[512,256]{1,0}, f32[512,512]{1,0}, "
      "f32[512]{0}, /*index=5*/f32[512,256]{1,0}) tuple(%a, %b, %c, %d, %e, /*index=5*/%f)",
      &t));
  EXPECT_EQ(t.name, "tuple");
  EXPECT_EQ(t.opcode, "tuple");
}

TEST(InstructionText, OpcodesWithDashesAndLeadingSpaces) {
  InstructionText t;
  ASSERT_TRUE(ParseInstructionText(
      "  %custom-call.19.0 = (bf16[32,6144]{1,0}, s8[4194304]{0}) custom-call(bf16[32,1024]{1,0} "
      "%fusion.122), custom_call_target=\"__cublas$gemm\"",
      &t));
  EXPECT_EQ(t.name, "custom-call.19.0");
  EXPECT_EQ(t.opcode, "custom-call");
}

TEST(InstructionText, MetadataValuesKeepTheirEscapesAndMayHoldBraces) {
  InstructionText t;
  ASSERT_TRUE(ParseInstructionText(
      "%Arg_1.2 = f32[512,512]{1,0} parameter(1), metadata={op_name=\"params[\\'w\\']}\" "
      "source_end_line=9 source_file=\"/w/t.py\" source_line=21}, "
      "backend_config={\"k\":\"}\"}",
      &t));
  EXPECT_EQ(t.metadata.op_name, "params[\\'w\\']}");
  EXPECT_EQ(t.metadata.source_file, "/w/t.py");
  EXPECT_EQ(t.metadata.source_line, 21);
  EXPECT_TRUE(t.metadata.op_type.empty());
}

TEST(InstructionText, NotAnInstruction) {
  InstructionText t;
  EXPECT_FALSE(ParseInstructionText("", &t));
  EXPECT_FALSE(ParseInstructionText("hello world", &t));
  EXPECT_FALSE(ParseInstructionText("%x = f32[]", &t));
  EXPECT_FALSE(ParseInstructionText("%x = f32[] add", &t));
}

TEST(OpMetadata, OnlyTheMetadataAttribute) {
  ir::OpMetadata m;
  EXPECT_FALSE(ParseOpMetadata("%x = f32[] add(%a, %b)", &m));
  EXPECT_TRUE(m.empty());
  ASSERT_TRUE(ParseOpMetadata("metadata={op_type=\"dot\" source_line=12}", &m));
  EXPECT_EQ(m.op_type, "dot");
  EXPECT_EQ(m.source_line, 12);
  EXPECT_FALSE(m.empty());
}

TEST(OpMetadata, MalformedMetadataIsBestEffort) {
  ir::OpMetadata m;
  // An unterminated quote ends the scan without inventing values.
  ParseOpMetadata("metadata={op_type=\"dot source_line=12}", &m);
  EXPECT_TRUE(m.op_type.empty());
  EXPECT_EQ(m.source_line, 0);
  ir::OpMetadata n;
  ParseOpMetadata("metadata={source_line=abc op_type=\"x\"}", &n);
  EXPECT_EQ(n.source_line, 0);
  EXPECT_EQ(n.op_type, "x");
}

}  // namespace
}  // namespace memplan::parsers
