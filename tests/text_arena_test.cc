// parsers/text_arena.h, and the buffer-assignment parser's use of it: the
// copies hold the texts given, stay put while the arena grows, equal texts
// share one copy when interned, and a parsed program neither points into
// nor keeps alive the text it was parsed from.
#include "parsers/text_arena.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "ir/program.h"
#include "parsers/buffer_assignment_parser.h"
#include "parsers/source_text.h"

namespace memplan::parsers {
namespace {

// True when `view` lies (even partly) within `text`.
bool PointsInto(std::string_view view, std::string_view text) {
  if (view.empty()) return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  return view.data() < end && view.data() + view.size() > begin;
}

TEST(TextArena, CopiesStayValidAsTheArenaGrows) {
  TextArena arena(/*block_bytes=*/64);
  std::vector<std::string> originals;
  std::vector<std::string_view> copies;
  for (int i = 0; i < 1000; ++i) {
    // Short texts packed into blocks, and every 7th longer than a block.
    originals.push_back(i % 7 == 0 ? std::string(100 + i, static_cast<char>('a' + i % 26))
                                   : "name." + std::to_string(i));
    copies.push_back(arena.Copy(originals.back()));
  }
  size_t total = 0;
  for (size_t i = 0; i < originals.size(); ++i) {
    EXPECT_EQ(copies[i], originals[i]) << i;
    EXPECT_FALSE(PointsInto(copies[i], originals[i])) << i;
    total += originals[i].size();
  }
  // The originals may go; the copies keep their bytes.
  for (std::string& original : originals) original.assign(original.size(), '#');
  EXPECT_EQ(copies[1], "name.1");
  EXPECT_EQ(copies[999], "name.999");
  EXPECT_EQ(arena.bytes(), total);
  EXPECT_GE(arena.capacity(), total);
  // Packed: short copies are adjacent in one block.
  EXPECT_EQ(copies[2].data(), copies[1].data() + copies[1].size());
}

TEST(TextArena, EmptyTextsTakeNoRoom) {
  TextArena arena;
  EXPECT_TRUE(arena.Copy("").empty());
  EXPECT_EQ(arena.bytes(), 0u);
  EXPECT_EQ(arena.capacity(), 0u);
}

TEST(TextInterner, EqualTextsShareOneCopy) {
  TextArena arena;
  TextInterner interner(arena);
  std::string a = "bf16[32,9216]{1,0}";
  std::string b = "bf16[32,9216]{1,0}";  // equal, elsewhere
  const std::string_view first = interner.Intern(a);
  const std::string_view second = interner.Intern(b);
  EXPECT_EQ(first, a);
  EXPECT_EQ(first.data(), second.data());
  EXPECT_FALSE(PointsInto(first, a));
  EXPECT_FALSE(PointsInto(first, b));
  const std::string_view other = interner.Intern("f32[4]{0}");
  EXPECT_NE(other.data(), first.data());
  EXPECT_EQ(other, "f32[4]{0}");
  EXPECT_EQ(interner.size(), 2u);
  EXPECT_EQ(arena.bytes(), a.size() + other.size());
}

constexpr std::string_view kDump = R"(BufferAssignment:
allocation 0: size 16, parameter 0, shape |f32[4]| at ShapeIndex {}:
 value: <1 p.0 @0> (size=16,offset=0): f32[4]{0}
allocation 1: size 48, output shape is |(f32[4], f32[4])|, maybe-live-out:
 value: <2 fusion.1 @0> (size=16,offset=0): f32[4]{0:T(4)}
 value: <3 tuple.2{} @0> (size=16,offset=16): (f32[4]{0}, f32[4]{0})

Total bytes used: 64 (64B)

Used values:
<2 fusion.1 @0>
 positions:
  fusion.1
 uses:
  tuple.2, operand 0
 from instruction: %fusion.1 = f32[4]{0:T(4)} fusion(f32[4]{0} %p.0), kind=kLoop, metadata={op_type="add" op_name="jit(f)/add" source_file="/w/f.py" source_line=7}
)";

// Every text view the parser leaves in `program`.
std::vector<std::string_view> TextViews(const ir::Program& program) {
  std::vector<std::string_view> views;
  for (const ir::Instruction& instruction : program.module.instructions()) {
    views.push_back(instruction.name);
    views.push_back(instruction.opcode_text);
    views.push_back(instruction.metadata->op_type);
    views.push_back(instruction.metadata->op_name);
    views.push_back(instruction.metadata->source_file);
    if (instruction.shape->layout) views.push_back(instruction.shape->layout->details);
  }
  for (const ir::Value& value : program.values) {
    views.push_back(value.shape_text);
    if (value.shape.layout) views.push_back(value.shape.layout->details);
  }
  for (const ir::Allocation& allocation : program.allocations) {
    views.push_back(allocation.parameter_shape_text);
    if (allocation.output_shape_text) views.push_back(*allocation.output_shape_text);
  }
  return views;
}

TEST(BufferAssignmentTexts, ProgramOwnsCopiesAndLetsTheInputGo) {
  std::shared_ptr<const SourceText> source = SourceText::FromString("t.txt", kDump);
  const std::string_view input = source->text();
  const std::weak_ptr<const SourceText> watch = source;
  absl::StatusOr<ir::Program> program =
      ParseBufferAssignment({source}, ir::Program::Named("t"));
  ASSERT_TRUE(program.ok()) << program.status();
  for (std::string_view view : TextViews(*program)) {
    EXPECT_FALSE(PointsInto(view, input)) << "'" << view << "' points into the input";
  }
  source.reset();
  EXPECT_TRUE(watch.expired()) << "the program keeps the input alive";

  // What the views say, read after the input is gone.
  const ir::Value* fusion = program->FindValue(ir::ValueId(2));
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(fusion->shape_text, "f32[4]{0:T(4)}");
  ASSERT_TRUE(fusion->shape.layout.has_value());
  EXPECT_EQ(fusion->shape.layout->details, "T(4)");
  const ir::Instruction& defining = program->DefiningInstruction(*fusion);
  EXPECT_EQ(defining.name, "fusion.1");
  EXPECT_EQ(defining.opcode_text, "fusion");
  EXPECT_EQ(defining.metadata->op_type, "add");
  EXPECT_EQ(defining.metadata->op_name, "jit(f)/add");
  EXPECT_EQ(defining.metadata->source_file, "/w/f.py");
  ASSERT_TRUE(defining.shape->layout.has_value());
  EXPECT_EQ(defining.shape->layout->details, "T(4)");
  const ir::Allocation* parameter = program->FindAllocation(ir::AllocationId(0));
  ASSERT_NE(parameter, nullptr);
  EXPECT_EQ(parameter->parameter_shape_text, "f32[4]");
  const ir::Allocation* output = program->FindAllocation(ir::AllocationId(1));
  ASSERT_NE(output, nullptr);
  ASSERT_TRUE(output->output_shape_text.has_value());
  EXPECT_EQ(*output->output_shape_text, "(f32[4], f32[4])");
  // The two values of shape f32[4]{0} share one copy of the text.
  const ir::Value* p = program->FindValue(ir::ValueId(1));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->shape_text, "f32[4]{0}");
}

// A shape the parser cannot read is warned about at its column in the
// input line, not at an address in the copy.
TEST(BufferAssignmentTexts, ShapeWarningLocatesIntoTheLine) {
  constexpr std::string_view kBadShape =
      "BufferAssignment:\n"
      "allocation 0: size 16:\n"
      " value: <1 p.0 @0> (size=16,offset=0): f32[4]{0} junk\n";
  absl::StatusOr<ir::Program> program = ParseBufferAssignment(
      {SourceText::FromString("bad.txt", kBadShape)}, ir::Program::Named("t"));
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->diagnostics.warnings().size(), 1u);
  // " value: <1 p.0 @0> (size=16,offset=0): " is 39 bytes; the shape stops
  // after "f32[4]{0}" (9 more), at column 49.
  EXPECT_EQ(program->diagnostics.warnings()[0].first_location, "bad.txt:3:49");
}

}  // namespace
}  // namespace memplan::parsers
