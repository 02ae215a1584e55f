// The IR's vocabulary: element types, shape byte sizes (XLA's
// ShapeUtil::ByteSizeOf rules), shape printing, diagnostics and lookups.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/diagnostics.h"
#include "ir/dtype.h"
#include "ir/opcode.h"
#include "ir/program.h"
#include "ir/shape.h"
#include "parsers/cursor.h"
#include "parsers/shape_parser.h"

namespace memplan {
namespace {

using ir::DType;

ir::Shape Parse(std::string_view text) {
  parsers::Cursor c(text);
  ir::Shape shape;
  EXPECT_TRUE(parsers::ParseShape(c, &shape)) << text;
  EXPECT_TRUE(c.AtEnd()) << text;
  return shape;
}

TEST(DType, NamesRoundTripForEveryElementType) {
  for (int i = static_cast<int>(DType::kPred); i < static_cast<int>(DType::kTuple); ++i) {
    const DType type = static_cast<DType>(i);
    const std::string_view name = ir::DTypeName(type);
    ASSERT_FALSE(name.empty());
    EXPECT_EQ(ir::DTypeFromName(name), type) << name;
  }
}

TEST(DType, SpellingsAsXlaPrintsThem) {
  EXPECT_EQ(ir::DTypeFromName("bf16"), DType::kBF16);
  EXPECT_EQ(ir::DTypeFromName("f8e4m3fn"), DType::kF8E4M3FN);
  EXPECT_EQ(ir::DTypeFromName("f8e4m3b11fnuz"), DType::kF8E4M3B11FNUZ);
  EXPECT_EQ(ir::DTypeFromName("f4e2m1fn"), DType::kF4E2M1FN);
  EXPECT_EQ(ir::DTypeFromName("pred"), DType::kPred);
  EXPECT_EQ(ir::DTypeFromName("token"), DType::kToken);
  EXPECT_EQ(ir::DTypeName(DType::kC128), "c128");
}

TEST(DType, UnknownNamesAreRejected) {
  EXPECT_FALSE(ir::DTypeFromName(""));
  EXPECT_FALSE(ir::DTypeFromName("f33"));
  EXPECT_FALSE(ir::DTypeFromName("F32"));
  EXPECT_FALSE(ir::DTypeFromName("float32"));
  // Placeholders in the table are not element types one can write.
  EXPECT_FALSE(ir::DTypeFromName("tuple"));
  EXPECT_FALSE(ir::DTypeFromName("invalid"));
}

// OpcodeFromName is a hash lookup over the spellings OpcodeName gives:
// every one maps back to its opcode, and nothing else (a prefix, an
// extension, another case, a neighbour in sorted order) maps to any.
TEST(Opcode, NamesRoundTripAndNothingElseMatches) {
  for (int i = 1; i <= static_cast<int>(ir::Opcode::kXor); ++i) {
    const ir::Opcode opcode = static_cast<ir::Opcode>(i);
    const std::string name(ir::OpcodeName(opcode));
    ASSERT_FALSE(name.empty()) << i;
    EXPECT_EQ(ir::OpcodeFromName(name), opcode) << name;
    EXPECT_EQ(ir::OpcodeFromName(name + "x"), ir::Opcode::kUnknown) << name;
    EXPECT_EQ(ir::OpcodeFromName(name.substr(0, name.size() - 1)) == opcode, false) << name;
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(ir::OpcodeFromName(upper), ir::Opcode::kUnknown) << name;
  }
  EXPECT_EQ(ir::OpcodeFromName(""), ir::Opcode::kUnknown);
  EXPECT_EQ(ir::OpcodeFromName("unknown"), ir::Opcode::kUnknown);
  EXPECT_EQ(ir::OpcodeFromName("custom-call"), ir::Opcode::kCustomCall);
  EXPECT_EQ(ir::OpcodeFromName("add"), ir::Opcode::kAdd);
}

TEST(DType, BitWidthsAsPrimitiveUtil) {
  EXPECT_EQ(ir::DTypeBitWidth(DType::kPred), 1);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kS4), 4);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kU2), 2);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kF4E2M1FN), 4);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kF8E5M2), 8);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kBF16), 16);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kF32), 32);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kS64), 64);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kC64), 64);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kC128), 128);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kToken), 0);
  EXPECT_EQ(ir::DTypeBitWidth(DType::kTuple), 0);
}

TEST(DType, StorageBytesRoundSubByteTypesUpToOneByte) {
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kPred), 1);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kS4), 1);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kU1), 1);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kF4E2M1FN), 1);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kBF16), 2);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kF64), 8);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kC128), 16);
  EXPECT_EQ(ir::DTypeStorageBytes(DType::kToken), 0);
}

TEST(DType, ArrayTypes) {
  EXPECT_TRUE(ir::IsArrayDType(DType::kPred));
  EXPECT_TRUE(ir::IsArrayDType(DType::kF8E4M3FN));
  EXPECT_FALSE(ir::IsArrayDType(DType::kToken));
  EXPECT_FALSE(ir::IsArrayDType(DType::kOpaque));
  EXPECT_FALSE(ir::IsArrayDType(DType::kTuple));
  EXPECT_FALSE(ir::IsArrayDType(DType::kInvalid));
}

// Sizes below are the allocation sizes real dumps print for these shapes.
TEST(ByteSizeOf, MatchesTheAllocationSizesInTheDumps) {
  // seed 004, allocation 0: "size 311164928, ... shape |bf16[151936,1024]|".
  EXPECT_EQ(ir::ByteSizeOf(Parse("bf16[151936,1024]{1,0}")), 311164928);
  // seed 004, allocation 1: "size 277413888, ... |bf16[2,4233,16,8,128]|".
  EXPECT_EQ(ir::ByteSizeOf(Parse("bf16[2,4233,16,8,128]{4,3,2,1,0}")), 277413888);
  // seed 004, allocation 46: "size 128, ... |s32[32]|"; 52: "size 4 ... |f32[]|".
  EXPECT_EQ(ir::ByteSizeOf(Parse("s32[32]{0}")), 128);
  EXPECT_EQ(ir::ByteSizeOf(Parse("f32[]")), 4);
  // seed 004, allocation 48: a 4-element output tuple is 4 pointers.
  EXPECT_EQ(ir::ByteSizeOf(Parse("(bf16[32,8,128]{2,1,0}, bf16[32,8,128]{2,1,0}, "
                                 "bf16[4233,16,8,128]{3,2,1,0}, bf16[4233,16,8,128]{3,2,1,0})")),
            32);
  // donated_args, allocation 9: a 6-element output tuple, "size 48".
  EXPECT_EQ(ir::ByteSizeOf(Parse("(f32[512,512]{1,0}, f32[512]{0}, f32[512,256]{1,0}, "
                                 "f32[512,512]{1,0}, f32[512]{0}, /*index=5*/f32[512,256]{1,0})")),
            48);
}

TEST(ByteSizeOf, SubByteTypesArePackedOnlyWhenTheLayoutSaysSo) {
  EXPECT_EQ(ir::ByteSizeOf(Parse("s4[2048,4096]")), 2048 * 4096);
  EXPECT_EQ(ir::ByteSizeOf(Parse("s4[2048,4096]{1,0}")), 2048 * 4096);
  EXPECT_EQ(ir::ByteSizeOf(Parse("s4[2048,4096]{1,0:T(8,128)(2,1)E(4)}")), 2048 * 4096 / 2);
  // An odd number of packed 4-bit elements rounds up to whole bytes.
  EXPECT_EQ(ir::ByteSizeOf(Parse("s4[3]{0:E(4)}")), 2);
  EXPECT_EQ(ir::ByteSizeOf(Parse("pred[10]{0}")), 10);
}

TEST(ByteSizeOf, DynamicDimensionsCountTheirBound) {
  EXPECT_EQ(ir::ByteSizeOf(Parse("f32[<=16,8]{1,0}")), 16 * 8 * 4);
}

TEST(ByteSizeOf, TokensAndOpaques) {
  EXPECT_EQ(ir::ByteSizeOf(Parse("token[]")), 0);
  EXPECT_EQ(ir::ByteSizeOf(Parse("opaque[]")), 8);
  EXPECT_EQ(ir::ByteSizeOf(Parse("opaque[]"), /*pointer_size=*/4), 4);
  EXPECT_EQ(ir::ByteSizeOf(Parse("()")), 0);
}

TEST(ByteSizeOf, TotalCountsEveryLeafAndEveryTupleTable) {
  // Outer table 2*8, f32[4] 16, inner table 2*8, s8[3] 3, f32[] 4.
  EXPECT_EQ(ir::TotalByteSizeOf(Parse("(f32[4]{0}, (s8[3]{0}, f32[]))")), 16 + 16 + 16 + 3 + 4);
  EXPECT_EQ(ir::TotalByteSizeOf(Parse("f32[4]{0}")), 16);
}

TEST(ShapeToString, PrintsAsXlaDoes) {
  for (std::string_view text :
       {"bf16[32,8,128]{2,1,0}", "f32[]", "(f32[], s32[4]{0})", "f32[<=16,8]{1,0}",
        "bf16[8,128]{1,0:T(8,128)(2,1)}", "s4[2048,4096]{1,0:T(8,128)(2,1)E(4)}",
        "((f32[2]{0}, s32[]), pred[])", "()"}) {
    EXPECT_EQ(ir::ShapeToString(Parse(text)), text);
  }
  EXPECT_EQ(ir::ShapeToString(Parse("(bf16[32,8]{1,0}, f32[])"), /*with_layout=*/false),
            "(bf16[32,8], f32[])");
}

TEST(ShapeIndex, PrintsAsXlaDoes) {
  EXPECT_EQ(ir::ShapeIndexToString({}), "{}");
  EXPECT_EQ(ir::ShapeIndexToString({0}), "{0}");
  EXPECT_EQ(ir::ShapeIndexToString({1, 2}), "{1,2}");
}

TEST(Diagnostics, CountsPerKindAndKeepsTheFirstLocation) {
  ir::Diagnostics d;
  EXPECT_EQ(d.total(), 0);
  d.Warn("unknown allocation attribute 'x'", "a.txt:3:10");
  d.Warn("unrecognized line (skipped)", "a.txt:5:1");
  d.Warn("unknown allocation attribute 'x'", "a.txt:9:10");
  d.Warn("unknown allocation attribute 'x'", "b.txt:1:1");
  ASSERT_EQ(d.warnings().size(), 2u);
  EXPECT_EQ(d.warnings()[0].kind, "unknown allocation attribute 'x'");
  EXPECT_EQ(d.warnings()[0].count, 3);
  EXPECT_EQ(d.warnings()[0].first_location, "a.txt:3:10");
  EXPECT_EQ(d.warnings()[1].kind, "unrecognized line (skipped)");
  EXPECT_EQ(d.warnings()[1].count, 1);
  EXPECT_EQ(d.total(), 4);
}

TEST(Diagnostics, ComputesALocationOnlyForAKindsFirstOccurrence) {
  ir::Diagnostics d;
  int calls = 0;
  auto location = [&] {
    ++calls;
    return std::string("t.txt:1:1");
  };
  for (int i = 0; i < 5; ++i) d.Warn("same kind", location);
  d.Warn("other kind", location);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(d.total(), 6);
}

TEST(Program, FindsValuesAndAllocationsById) {
  ir::Program p;
  for (int64_t id : {2, 5, 9}) {
    ir::Value v;
    v.id = ir::ValueId(id);
    p.values.push_back(v);
    ir::Allocation a;
    a.id = ir::AllocationId(id * 10);
    p.allocations.push_back(a);
  }
  ASSERT_NE(p.FindValue(ir::ValueId(5)), nullptr);
  EXPECT_EQ(p.FindValue(ir::ValueId(5))->id.value(), 5);
  EXPECT_EQ(p.FindValue(ir::ValueId(4)), nullptr);
  EXPECT_EQ(p.FindValue(ir::ValueId(10)), nullptr);
  ASSERT_NE(p.FindAllocation(ir::AllocationId(90)), nullptr);
  EXPECT_EQ(p.FindAllocation(ir::AllocationId(9)), nullptr);
  EXPECT_EQ(p.FindAllocation(ir::AllocationId()), nullptr);
}

// FindValue answers as std::lower_bound does (the first value with the id,
// or none) for id lists that are dense from 0, dense from elsewhere, dense
// with a hole, sparse, or hold repeated ids (which only parsers' bugs make).
TEST(Program, FindValueMatchesLowerBoundOnDenseSparseAndRepeatedIds) {
  const std::vector<std::vector<int64_t>> lists = {
      {0, 1, 2, 3, 4, 5, 6, 7},  {3, 4, 5, 6, 7, 8},        {0, 1, 2, 4, 5, 6, 7, 8},
      {0, 1, 1, 2, 3, 4, 5, 6},  {0, 0, 0, 3, 4, 5},        {2, 5, 9, 40, 41, 1000},
      {-3, -2, -1, 0, 1, 2},     {0, 1, 2, 3, 3, 3, 3, 7},  {7}};
  for (const std::vector<int64_t>& ids : lists) {
    ir::Program p;
    for (size_t i = 0; i < ids.size(); ++i) {
      ir::Value v;
      v.id = ir::ValueId(ids[i]);
      v.size = static_cast<int64_t>(i);  // which of the repeated ids was found
      p.values.push_back(v);
    }
    for (int64_t x = ids.front() - 2; x <= ids.back() + 2; ++x) {
      const auto it = std::lower_bound(ids.begin(), ids.end(), x);
      const ir::Value* found = p.FindValue(ir::ValueId(x));
      if (it == ids.end() || *it != x) {
        EXPECT_EQ(found, nullptr) << x;
      } else {
        ASSERT_NE(found, nullptr) << x;
        EXPECT_EQ(found->size, it - ids.begin()) << x;
      }
    }
  }
}

TEST(Value, NameAddsTheIndexOnlyWhenThereIsOne) {
  ir::Program p;
  ir::Instruction instruction;
  instruction.name = "custom-call.19.0";
  ir::Value v;
  v.instruction = p.module.AddInstruction(instruction);
  EXPECT_EQ(p.ValueName(v), "custom-call.19.0");
  v.index = {1};
  EXPECT_EQ(p.ValueName(v), "custom-call.19.0{1}");
  v.instruction = ir::InstructionId();
  EXPECT_EQ(p.ValueName(v), "{1}");
}

TEST(StrongId, DefaultIsInvalidAndIdsOrder) {
  EXPECT_FALSE(ir::ValueId().valid());
  EXPECT_TRUE(ir::ValueId(0).valid());
  EXPECT_LT(ir::ValueId(3), ir::ValueId(12));
}

}  // namespace
}  // namespace memplan
