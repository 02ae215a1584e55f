// The buffer-assignment parser on inline inputs: every attribute and line
// kind lands in the right IR field; malformed lines are errors naming
// "file:line:col" and what was expected; unknown ones are counted warnings;
// the split layout gives the same Program as the joined one.
#include "parsers/buffer_assignment_parser.h"

#include <string>

#include "gtest/gtest.h"
#include "ir/shape.h"
#include "parsers/load_program.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

using test::ParseText;
using test::ParseTexts;

const ir::Allocation& AllocationAt(const ir::Program& p, int64_t id) {
  const ir::Allocation* a = p.FindAllocation(ir::AllocationId(id));
  EXPECT_NE(a, nullptr) << "allocation " << id;
  static const ir::Allocation kMissing;
  return a ? *a : kMissing;
}

const ir::Value& ValueAt(const ir::Program& p, int64_t id) {
  const ir::Value* v = p.FindValue(ir::ValueId(id));
  EXPECT_NE(v, nullptr) << "value " << id;
  static const ir::Value kMissing;
  return v ? *v : kMissing;
}

std::vector<int64_t> ValueIds(const ir::Allocation& a) {
  std::vector<int64_t> ids;
  for (ir::ValueId id : a.values) ids.push_back(id.value());
  return ids;
}

// ---------------------------------------------------------------------------
// Allocations and their attributes

constexpr std::string_view kAttributes = R"(BufferAssignment:
allocation 0: size 64, color 1, page 2:
 value: <1 all-reduce.1 @1> (size=64,offset=0): f32[16]{0:S(1)}
allocation 1: size 16, parameter 0, shape |(f32[4], s32[])| at ShapeIndex {}:
 value: <2 p0.1{} @0> (size=16,offset=0): (f32[4]{0}, s32[])
allocation 2: size 16, parameter 0, shape |(f32[4], s32[])| at ShapeIndex {0}:
 value: <3 p0.1{0} @0> (size=16,offset=0): f32[4]{0}
allocation 3: size 4, parameter 0, shape |(f32[4], s32[])| at ShapeIndex {1}, maybe-live-out:
 value: <4 p0.1{1} @0> (size=4,offset=0): s32[]
 value: <9 add.7 @0> (size=4,offset=0): s32[]
allocation 4: size 16, output shape is |(f32[4], s32[])|, maybe-live-out:
 value: <10 tuple.8{} @0> (size=16,offset=0): (f32[4]{0}, s32[])
allocation 5: size 8, constant:
 value: <5 constant.3 @0> (size=8,offset=0): f32[2]{0}
allocation 6: size 4, thread-local:
 value: <6 x.4 @0> (size=4,offset=0): f32[]
allocation 7: size 48, preallocated-temp:
 value: <7 fusion.5 @0> (size=16,offset=0): f32[4]{0}
 value: <8 while.6{1} (phi) @0> (size=16,offset=32): f32[4]{0}
)";

TEST(BufferAssignmentParser, ColorAndPage) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Allocation& a = AllocationAt(*p, 0);
  EXPECT_EQ(a.size, 64);
  EXPECT_EQ(a.color, 1);
  EXPECT_EQ(a.page, 2);
  EXPECT_FALSE(a.is_entry_parameter());
  EXPECT_FALSE(a.maybe_live_out);
  EXPECT_EQ(AllocationAt(*p, 5).color, 0);
  EXPECT_FALSE(AllocationAt(*p, 5).page.has_value());
}

TEST(BufferAssignmentParser, ParameterWithShapeAndShapeIndex) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  for (int64_t id : {1, 2, 3}) {
    const ir::Allocation& a = AllocationAt(*p, id);
    ASSERT_TRUE(a.is_entry_parameter()) << id;
    EXPECT_EQ(*a.parameter_number, 0);
    EXPECT_EQ(a.parameter_shape_text, "(f32[4], s32[])");
  }
  EXPECT_EQ(AllocationAt(*p, 1).parameter_index, ir::ShapeIndex{});
  EXPECT_EQ(AllocationAt(*p, 2).parameter_index, ir::ShapeIndex{0});
  EXPECT_EQ(AllocationAt(*p, 3).parameter_index, ir::ShapeIndex{1});
}

TEST(BufferAssignmentParser, DonatedParameterIsAlsoMaybeLiveOut) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Allocation& a = AllocationAt(*p, 3);
  EXPECT_TRUE(a.is_entry_parameter());
  EXPECT_TRUE(a.maybe_live_out);
  EXPECT_EQ(ValueIds(a), (std::vector<int64_t>{4, 9}));
  EXPECT_FALSE(AllocationAt(*p, 2).maybe_live_out);
}

TEST(BufferAssignmentParser, OutputTupleShapeKeepsItsCommas) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Allocation& a = AllocationAt(*p, 4);
  ASSERT_TRUE(a.output_shape_text.has_value());
  EXPECT_EQ(*a.output_shape_text, "(f32[4], s32[])");
  EXPECT_TRUE(a.maybe_live_out);  // the attribute after the tuple
  EXPECT_FALSE(a.is_entry_parameter());
  EXPECT_FALSE(AllocationAt(*p, 3).output_shape_text.has_value());
}

TEST(BufferAssignmentParser, ConstantThreadLocalAndPreallocatedTemp) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(AllocationAt(*p, 5).is_constant);
  EXPECT_TRUE(AllocationAt(*p, 6).is_thread_local);
  EXPECT_TRUE(AllocationAt(*p, 7).is_preallocated_temp);
  for (int64_t id : {0, 1, 2, 3, 4}) {
    const ir::Allocation& a = AllocationAt(*p, id);
    EXPECT_FALSE(a.is_constant || a.is_thread_local || a.is_preallocated_temp) << id;
  }
  EXPECT_EQ(p->diagnostics.total(), 0);
  EXPECT_FALSE(p->stated_total_bytes.has_value());
  EXPECT_FALSE(p->has_live_ranges);
}

TEST(BufferAssignmentParser, ValuesWithIndexPhiColorAndOffset) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->values.size(), 10u);
  const ir::Value& phi = ValueAt(*p, 8);
  EXPECT_EQ(test::NameOf(*p, phi.instruction), "while.6");
  EXPECT_EQ(phi.index, ir::ShapeIndex{1});
  EXPECT_TRUE(phi.is_phi);
  EXPECT_EQ(phi.size, 16);
  EXPECT_EQ(phi.offset, 32);
  EXPECT_EQ(phi.allocation, ir::AllocationId(7));
  EXPECT_EQ(p->ValueName(phi), "while.6{1}");
  EXPECT_FALSE(ValueAt(*p, 7).is_phi);

  const ir::Value& element = ValueAt(*p, 3);
  EXPECT_EQ(test::NameOf(*p, element.instruction), "p0.1");
  EXPECT_EQ(element.index, ir::ShapeIndex{0});

  const ir::Value& tuple = ValueAt(*p, 2);
  EXPECT_TRUE(tuple.index.empty());
  EXPECT_TRUE(tuple.shape.IsTuple());
  EXPECT_EQ(tuple.shape.tuple_elements.size(), 2u);

  const ir::Value& colored = ValueAt(*p, 1);
  EXPECT_EQ(colored.color, 1);
  EXPECT_EQ(colored.shape_text, "f32[16]{0:S(1)}");
  ASSERT_TRUE(colored.shape.layout.has_value());
  EXPECT_EQ(colored.shape.layout->memory_space, 1);
  EXPECT_EQ(ValueAt(*p, 7).color, 0);
  EXPECT_EQ(ValueIds(AllocationAt(*p, 7)), (std::vector<int64_t>{7, 8}));
}

TEST(BufferAssignmentParser, ValuesAndAllocationsComeOutSortedById) {
  absl::StatusOr<ir::Program> p = ParseText(kAttributes);
  ASSERT_TRUE(p.ok()) << p.status();
  for (size_t i = 1; i < p->values.size(); ++i) EXPECT_LT(p->values[i - 1].id, p->values[i].id);
  for (size_t i = 1; i < p->allocations.size(); ++i) {
    EXPECT_LT(p->allocations[i - 1].id, p->allocations[i].id);
  }
}

TEST(BufferAssignmentParser, TupleShapesWithIndexComments) {
  absl::StatusOr<ir::Program> p = ParseText(
      "allocation 0: size 48, output shape is |(f32[1], f32[1], f32[1], f32[1], f32[1], "
      "/*index=5*/f32[1])|, maybe-live-out:\n"
      " value: <0 tuple{} @0> (size=48,offset=0): (f32[1]{0}, f32[1]{0}, f32[1]{0}, f32[1]{0}, "
      "f32[1]{0}, /*index=5*/f32[1]{0})\n");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*AllocationAt(*p, 0).output_shape_text,
            "(f32[1], f32[1], f32[1], f32[1], f32[1], /*index=5*/f32[1])");
  EXPECT_EQ(ValueAt(*p, 0).shape.tuple_elements.size(), 6u);
  EXPECT_EQ(p->diagnostics.total(), 0);
}

TEST(BufferAssignmentParser, ReusedByBuffersOfADifferentColor) {
  absl::StatusOr<ir::Program> p = ParseText(R"(BufferAssignment:
allocation 0: size 2048, preallocated-temp:
 value: <3 fusion.1 @0> (size=1024,offset=0): f32[256]{0}
 reused by buffers of a different color:
  value: <12 all-gather-start.2{1} @1> (color=1)
  value: <13 all-gather-done.3 @1> (color=1)
allocation 1: size 1024, color 1:
 value: <12 all-gather-start.2{1} @1> (size=1024,offset=0): f32[256]{0:S(1)}
 value: <13 all-gather-done.3 @1> (size=1024,offset=0): f32[256]{0:S(1)}
)");
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Allocation& temp = AllocationAt(*p, 0);
  ASSERT_EQ(temp.reused_by_other_colors.size(), 2u);
  EXPECT_EQ(temp.reused_by_other_colors[0].value, ir::ValueId(12));
  EXPECT_EQ(temp.reused_by_other_colors[0].color, 1);
  EXPECT_EQ(temp.reused_by_other_colors[1].value, ir::ValueId(13));
  // The block names values; it does not assign them to this allocation.
  EXPECT_EQ(ValueIds(temp), (std::vector<int64_t>{3}));
  EXPECT_EQ(ValueAt(*p, 12).allocation, ir::AllocationId(1));
  EXPECT_TRUE(AllocationAt(*p, 1).reused_by_other_colors.empty());
  EXPECT_EQ(p->diagnostics.total(), 0);
}

// ---------------------------------------------------------------------------
// Used values

constexpr std::string_view kUsedValues = R"(BufferAssignment:
allocation 0: size 16, maybe-live-out:
 value: <1 fusion.1 @0> (size=16,offset=0): f32[4]{0}
allocation 1: size 16, output shape is |(f32[4], f32[4])|, maybe-live-out:
 value: <2 tuple.2{} @0> (size=16,offset=0): (f32[4]{0}, f32[4]{0})

Total bytes used: 32 (32B)

Used values:
<1 fusion.1 @0>
 positions:
  fusion.1
  tuple.2 {0}
 uses:
  tuple.2, operand 0
  get-tuple-element.3, operand 0 {1}
 from instruction: %fusion.1 = f32[4]{0} fusion(f32[4]{0} %p.0), kind=kLoop, calls=%fused_computation, metadata={op_type="add" op_name="jit(f)/add" source_file="/w/f.py" source_line=7}
<2 tuple.2{} @0>
 positions:
  tuple.2 {}
 uses:
  (none)
 from instruction: tuple.2 = (f32[4]{0}, f32[4]{0}) tuple(fusion.1, fusion.1)
)";

TEST(BufferAssignmentParser, TotalBytesUsed) {
  absl::StatusOr<ir::Program> p = ParseText(kUsedValues);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->stated_total_bytes, 32);
}

TEST(BufferAssignmentParser, PositionsAndUses) {
  absl::StatusOr<ir::Program> p = ParseText(kUsedValues);
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Value& v = ValueAt(*p, 1);
  ASSERT_EQ(v.positions.size(), 2u);
  EXPECT_EQ(test::NameOf(*p, v.positions[0].instruction), "fusion.1");
  EXPECT_TRUE(v.positions[0].index.empty());
  EXPECT_EQ(test::NameOf(*p, v.positions[1].instruction), "tuple.2");
  EXPECT_EQ(v.positions[1].index, ir::ShapeIndex{0});
  ASSERT_EQ(v.uses.size(), 2u);
  EXPECT_EQ(test::NameOf(*p, v.uses[0].instruction), "tuple.2");
  EXPECT_EQ(v.uses[0].operand_number, 0);
  EXPECT_TRUE(v.uses[0].operand_index.empty());
  EXPECT_EQ(test::NameOf(*p, v.uses[1].instruction), "get-tuple-element.3");
  EXPECT_EQ(v.uses[1].operand_index, ir::ShapeIndex{1});
  EXPECT_TRUE(ValueAt(*p, 2).uses.empty());  // "(none)"
  EXPECT_EQ(p->diagnostics.total(), 0);
}

TEST(BufferAssignmentParser, DefiningInstructionWithAndWithoutPercent) {
  absl::StatusOr<ir::Program> p = ParseText(kUsedValues);
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Instruction& fusion = test::Defining(*p, ValueAt(*p, 1));
  EXPECT_EQ(fusion.name, "fusion.1");
  EXPECT_EQ(fusion.opcode, ir::Opcode::kFusion);
  EXPECT_EQ(fusion.opcode_text, "fusion");
  EXPECT_EQ(ir::ShapeToString(fusion.shape), "f32[4]{0}");
  EXPECT_EQ(fusion.metadata->op_type, "add");
  EXPECT_EQ(fusion.metadata->op_name, "jit(f)/add");
  EXPECT_EQ(fusion.metadata->source_file, "/w/f.py");
  EXPECT_EQ(fusion.metadata->source_line, 7);
  EXPECT_FALSE(fusion.computation.valid());  // no module text: known by what the dump says
  const ir::Instruction& tuple = test::Defining(*p, ValueAt(*p, 2));
  EXPECT_EQ(tuple.name, "tuple.2");
  EXPECT_EQ(tuple.opcode, ir::Opcode::kTuple);
  EXPECT_TRUE(tuple.metadata->empty());
  EXPECT_TRUE(p->module.has_gap(ir::GraphGap::kOperands));
}

TEST(BufferAssignmentParser, OldStyleEmptyUsesList) {
  absl::StatusOr<ir::Program> p = ParseText(R"(allocation 0: size 4, thread-local:
 value: <21 add.127 @0> (size=4,offset=0): f32[]
Used values:
<21 add.127 @0>
 positions:
  add.127
 uses:
 from instruction: %add.127 = f32[] add(f32[] %x.65, f32[] %y.66)
)");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(ValueAt(*p, 21).uses.empty());
  EXPECT_EQ(test::Defining(*p, ValueAt(*p, 21)).opcode, ir::Opcode::kAdd);
  EXPECT_EQ(p->diagnostics.total(), 0);
}

// ---------------------------------------------------------------------------
// HloLiveRange, and the split layout

constexpr std::string_view kMain = R"(BufferAssignment:
allocation 0: size 1024, parameter 0, shape |f32[256]| at ShapeIndex {}:
 value: <0 p0 @0> (size=1024,offset=0): f32[256]{0}
allocation 1: size 2048, preallocated-temp:
 value: <1 a @0> (size=1024,offset=0): f32[256]{0}
 value: <2 b @0> (size=1024,offset=1024): f32[256]{0}
 value: <3 c{} @0> (size=16,offset=0): (f32[256]{0}, f32[256]{0})
allocation 2: size 1024, maybe-live-out:
 value: <4 d @0> (size=1024,offset=0): f32[256]{0}
)";

constexpr std::string_view kValues = R"(Total bytes used: 4096 (4.0KiB)

Used values:
<0 p0 @0>
 positions:
  p0
 uses:
  a, operand 0
 from instruction: %p0 = f32[256]{0} parameter(0), metadata={op_name="x"}
<2 b @0>
 positions:
  b
 uses:
  c, operand 0
  d, operand 0
 from instruction: %b = f32[256]{0} negate(%a), metadata={op_type="neg" op_name="jit(f)/neg" source_file="/w/f.py" source_line=3}
)";

constexpr std::string_view kLiveRange = R"(HloLiveRange (max 5):
  InstructionSequence:
    0:p0
    1:a
    2:b
    3:c
    4:d
  BufferLiveRange:
    p0{}:0-5
    a{}:1-2
    b{}:2-4
    c{}:3-3
    d{}:4-5
  Live ranges at 2 (peak):
    p0{}: 1024 bytes (cumulative: 1024 bytes)
    a{}: 1024 bytes (cumulative: 2048 bytes)
    b{}: 1024 bytes (cumulative: 3072 bytes)
  Stack trace breakdown for peak usage: 3 072 bytes
    main (100.0%, total: 3 072 bytes, current: 0 bytes, remaining: 3 072 bytes)
      ├── jit(f)/neg (33.3%, total: 1 024 bytes, current: 1 024 bytes, remaining: 2 048 bytes)
      └── x (33.3%, total: 1 024 bytes, current: 1 024 bytes, remaining: 0 bytes)
)";

TEST(BufferAssignmentParser, ScheduleAndLiveRanges) {
  absl::StatusOr<ir::Program> p =
      ParseTexts({{"m-buffer-assignment.txt", std::string(kMain)},
                  {"m-buffer-assignment-values.txt", std::string(kValues)},
                  {"m-live-range.txt", std::string(kLiveRange)}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_TRUE(p->has_live_ranges);
  EXPECT_EQ(p->schedule.max_time, 5);
  std::vector<std::string_view> schedule;
  for (ir::InstructionId id : p->schedule.instructions) schedule.push_back(test::NameOf(*p, id));
  EXPECT_EQ(schedule, (std::vector<std::string_view>{"p0", "a", "b", "c", "d"}));
  ASSERT_TRUE(ValueAt(*p, 1).live_range.has_value());
  EXPECT_EQ(ValueAt(*p, 1).live_range->start, 1);
  EXPECT_EQ(ValueAt(*p, 1).live_range->end, 2);
  ASSERT_TRUE(ValueAt(*p, 3).live_range.has_value());  // "c{}" names the tuple value
  EXPECT_EQ(ValueAt(*p, 3).live_range->start, 3);
  EXPECT_EQ(ValueAt(*p, 3).live_range->end, 3);
  EXPECT_EQ(ValueAt(*p, 0).live_range->end, 5);
  EXPECT_EQ(p->diagnostics.total(), 0);  // the stack-trace tree is skipped quietly
  EXPECT_EQ(p->source_files,
            (std::vector<std::string>{"m-buffer-assignment.txt", "m-buffer-assignment-values.txt",
                                      "m-live-range.txt"}));
}

TEST(BufferAssignmentParser, NewStylePeakList) {
  absl::StatusOr<ir::Program> p = ParseTexts(
      {{"m-buffer-assignment.txt", std::string(kMain)}, {"m-live-range.txt", std::string(kLiveRange)}});
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->stated_peak.has_value());
  EXPECT_EQ(p->stated_peak->step, 2);
  ASSERT_EQ(p->stated_peak->entries.size(), 3u);
  EXPECT_EQ(test::NameOf(*p, p->stated_peak->entries[0].instruction), "p0");
  ASSERT_TRUE(p->stated_peak->entries[0].index.has_value());
  EXPECT_TRUE(p->stated_peak->entries[0].index->empty());
  EXPECT_EQ(p->stated_peak->entries[0].bytes, 1024);
  EXPECT_EQ(test::NameOf(*p, p->stated_peak->entries[2].instruction), "b");
}

TEST(BufferAssignmentParser, OldStylePeakListHasNoIndices) {
  absl::StatusOr<ir::Program> p = ParseText(std::string(kMain) + R"(HloLiveRange (max 2):
  InstructionSequence:
    0:p0
    1:a
  BufferLiveRange:
    p0{}:0-2
    a{}:1-2
  Live ranges at 1 (peak):
    p0: 1024 bytes
    a: 1024 bytes
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->stated_peak.has_value());
  EXPECT_EQ(p->stated_peak->step, 1);
  ASSERT_EQ(p->stated_peak->entries.size(), 2u);
  EXPECT_EQ(test::NameOf(*p, p->stated_peak->entries[1].instruction), "a");
  EXPECT_FALSE(p->stated_peak->entries[1].index.has_value());
  EXPECT_EQ(p->stated_peak->entries[1].bytes, 1024);
}

TEST(BufferAssignmentParser, WithoutLiveRangeThereIsNoSchedule) {
  absl::StatusOr<ir::Program> p = ParseText(std::string(kMain) + std::string(kValues));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->has_live_ranges);
  EXPECT_TRUE(p->schedule.instructions.empty());
  EXPECT_FALSE(p->stated_peak.has_value());
  for (const ir::Value& v : p->values) EXPECT_FALSE(v.live_range.has_value()) << p->ValueName(v);
}

void ExpectSamePrograms(const ir::Program& a, const ir::Program& b) {
  ASSERT_EQ(a.allocations.size(), b.allocations.size());
  for (size_t i = 0; i < a.allocations.size(); ++i) {
    const ir::Allocation& x = a.allocations[i];
    const ir::Allocation& y = b.allocations[i];
    SCOPED_TRACE("allocation " + std::to_string(x.id.value()));
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.size, y.size);
    EXPECT_EQ(x.color, y.color);
    EXPECT_EQ(x.page, y.page);
    EXPECT_EQ(x.parameter_number, y.parameter_number);
    EXPECT_EQ(x.parameter_shape_text, y.parameter_shape_text);
    EXPECT_EQ(x.parameter_index, y.parameter_index);
    EXPECT_EQ(x.output_shape_text, y.output_shape_text);
    EXPECT_EQ(x.is_constant, y.is_constant);
    EXPECT_EQ(x.is_thread_local, y.is_thread_local);
    EXPECT_EQ(x.maybe_live_out, y.maybe_live_out);
    EXPECT_EQ(x.is_preallocated_temp, y.is_preallocated_temp);
    EXPECT_EQ(x.values, y.values);
    ASSERT_EQ(x.reused_by_other_colors.size(), y.reused_by_other_colors.size());
  }
  ASSERT_EQ(a.values.size(), b.values.size());
  for (size_t i = 0; i < a.values.size(); ++i) {
    const ir::Value& x = a.values[i];
    const ir::Value& y = b.values[i];
    SCOPED_TRACE("value " + std::to_string(x.id.value()));
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(test::NameOf(a, x.instruction), test::NameOf(b, y.instruction));
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.is_phi, y.is_phi);
    EXPECT_EQ(x.color, y.color);
    EXPECT_EQ(x.size, y.size);
    EXPECT_EQ(x.allocation, y.allocation);
    EXPECT_EQ(x.offset, y.offset);
    EXPECT_EQ(x.shape_text, y.shape_text);
    EXPECT_EQ(ir::ShapeToString(x.shape), ir::ShapeToString(y.shape));
    ASSERT_EQ(x.positions.size(), y.positions.size());
    for (size_t j = 0; j < x.positions.size(); ++j) {
      EXPECT_EQ(test::NameOf(a, x.positions[j].instruction),
                test::NameOf(b, y.positions[j].instruction));
      EXPECT_EQ(x.positions[j].index, y.positions[j].index);
    }
    ASSERT_EQ(x.uses.size(), y.uses.size());
    for (size_t j = 0; j < x.uses.size(); ++j) {
      EXPECT_EQ(test::NameOf(a, x.uses[j].instruction), test::NameOf(b, y.uses[j].instruction));
      EXPECT_EQ(x.uses[j].operand_number, y.uses[j].operand_number);
      EXPECT_EQ(x.uses[j].operand_index, y.uses[j].operand_index);
    }
    const ir::Instruction& ix = test::Defining(a, x);
    const ir::Instruction& iy = test::Defining(b, y);
    EXPECT_EQ(ix.opcode_text, iy.opcode_text);
    EXPECT_EQ(ix.metadata, iy.metadata);
    EXPECT_EQ(ir::ShapeToString(ix.shape), ir::ShapeToString(iy.shape));
    ASSERT_EQ(x.live_range.has_value(), y.live_range.has_value());
    if (x.live_range) {
      EXPECT_EQ(x.live_range->start, y.live_range->start);
      EXPECT_EQ(x.live_range->end, y.live_range->end);
    }
  }
  EXPECT_EQ(a.stated_total_bytes, b.stated_total_bytes);
  EXPECT_EQ(a.has_live_ranges, b.has_live_ranges);
  ASSERT_EQ(a.schedule.instructions.size(), b.schedule.instructions.size());
  for (size_t j = 0; j < a.schedule.instructions.size(); ++j) {
    EXPECT_EQ(test::NameOf(a, a.schedule.instructions[j]),
              test::NameOf(b, b.schedule.instructions[j]));
  }
  EXPECT_EQ(a.schedule.max_time, b.schedule.max_time);
  ASSERT_EQ(a.stated_peak.has_value(), b.stated_peak.has_value());
  if (a.stated_peak) {
    EXPECT_EQ(a.stated_peak->step, b.stated_peak->step);
    ASSERT_EQ(a.stated_peak->entries.size(), b.stated_peak->entries.size());
    for (size_t j = 0; j < a.stated_peak->entries.size(); ++j) {
      EXPECT_EQ(test::NameOf(a, a.stated_peak->entries[j].instruction),
                test::NameOf(b, b.stated_peak->entries[j].instruction));
      EXPECT_EQ(a.stated_peak->entries[j].index, b.stated_peak->entries[j].index);
      EXPECT_EQ(a.stated_peak->entries[j].bytes, b.stated_peak->entries[j].bytes);
    }
  }
  EXPECT_EQ(a.diagnostics.total(), b.diagnostics.total());
}

TEST(BufferAssignmentParser, SplitLayoutGivesTheSameProgramAsTheJoinedOne) {
  absl::StatusOr<ir::Program> split =
      ParseTexts({{"m-buffer-assignment.txt", std::string(kMain)},
                  {"m-buffer-assignment-values.txt", std::string(kValues)},
                  {"m-live-range.txt", std::string(kLiveRange)}});
  absl::StatusOr<ir::Program> joined =
      ParseText(std::string(kMain) + std::string(kValues) + std::string(kLiveRange));
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_TRUE(joined.ok()) << joined.status();
  ExpectSamePrograms(*split, *joined);
  EXPECT_TRUE(joined->stated_peak.has_value());  // the comparison compared something
  EXPECT_EQ(test::Defining(*joined, ValueAt(*joined, 2)).metadata->op_type, "neg");
}

TEST(BufferAssignmentParser, SplitSampleEqualsItsFilesJoined) {
  const std::string stem =
      test::SourcePath("samples/xla/split_dump/module_0001.jit_step.cpu_after_optimizations");
  absl::StatusOr<parsers::LoadedProgram> split =
      parsers::LoadProgram(test::SourcePath("samples/xla/split_dump"), {});
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->program.source_files.size(), 3u);
  const std::string joined_text = test::ReadFileOrDie(stem + "-buffer-assignment.txt") +
                                  test::ReadFileOrDie(stem + "-buffer-assignment-values.txt") +
                                  test::ReadFileOrDie(stem + "-live-range.txt");
  absl::StatusOr<ir::Program> joined = ParseText(joined_text, "joined.txt");
  ASSERT_TRUE(joined.ok()) << joined.status();
  ExpectSamePrograms(split->program, *joined);
}

// ---------------------------------------------------------------------------
// Recoverable problems: counted, not fatal

TEST(BufferAssignmentParser, UnknownAttributeIsAWarningAndTheRestStillParses) {
  absl::StatusOr<ir::Program> p = ParseText(R"(BufferAssignment:
allocation 0: size 16, maybe-live-out, frobnicated, color 2:
 value: <1 x @2> (size=16,offset=0): f32[4]{0}
allocation 1: size 4, frobnicated:
 value: <2 y @0> (size=4,offset=0): f32[]
)");
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Allocation& a = AllocationAt(*p, 0);
  EXPECT_TRUE(a.maybe_live_out);
  EXPECT_EQ(a.color, 2);
  ASSERT_EQ(p->diagnostics.warnings().size(), 1u);
  const ir::Warning& w = p->diagnostics.warnings()[0];
  EXPECT_EQ(w.kind, "unknown allocation attribute 'frobnicated'");
  EXPECT_EQ(w.count, 2);
  EXPECT_EQ(w.first_location, "t.txt:2:40");
}

TEST(BufferAssignmentParser, KnownNameFollowedByMoreTextIsAnUnknownAttribute) {
  absl::StatusOr<ir::Program> p = ParseText(R"(allocation 0: size 16, constant-folded, color 3x:
 value: <1 x @0> (size=16,offset=0): f32[4]{0}
)");
  ASSERT_TRUE(p.ok()) << p.status();
  const ir::Allocation& a = AllocationAt(*p, 0);
  EXPECT_FALSE(a.is_constant);
  EXPECT_EQ(a.color, 0);
  ASSERT_EQ(p->diagnostics.warnings().size(), 2u);
  EXPECT_EQ(p->diagnostics.warnings()[0].kind, "unknown allocation attribute 'constant-folded'");
  EXPECT_EQ(p->diagnostics.warnings()[0].first_location, "t.txt:1:24");
  EXPECT_EQ(p->diagnostics.warnings()[1].kind, "unknown allocation attribute 'color 3x'");
}

TEST(BufferAssignmentParser, UnknownLinesAreWarningsWithTheirLocation) {
  absl::StatusOr<ir::Program> p = ParseText(R"(BufferAssignment:
allocation 0: size 16:
 value: <1 x @0> (size=16,offset=0): f32[4]{0}

Total bytes used: 16 (16B)
Something a newer XLA prints
  and another line
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(p->diagnostics.warnings()[0].kind, "unrecognized line (skipped)");
  EXPECT_EQ(p->diagnostics.warnings()[0].count, 2);
  EXPECT_EQ(p->diagnostics.warnings()[0].first_location, "t.txt:6:1");
  EXPECT_EQ(p->stated_total_bytes, 16);
}

TEST(BufferAssignmentParser, ValueOutsideItsAllocationIsAWarning) {
  absl::StatusOr<ir::Program> p = ParseText(R"(allocation 0: size 16:
 value: <1 x @0> (size=16,offset=8): f32[4]{0}
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(p->diagnostics.warnings()[0].kind, "value extends past the end of its allocation");
}

TEST(BufferAssignmentParser, LiveRangeOfAnUnknownValueIsAWarning) {
  absl::StatusOr<ir::Program> p = ParseText(R"(allocation 0: size 16:
 value: <1 x @0> (size=16,offset=0): f32[4]{0}
HloLiveRange (max 3):
  BufferLiveRange:
    x{}:0-3
    ghost{}:1-2
)");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(p->diagnostics.warnings()[0].kind,
            "live range of a value the buffer assignment does not list (ignored)");
  EXPECT_EQ(p->diagnostics.warnings()[0].first_location, "t.txt:6:5");
  EXPECT_TRUE(ValueAt(*p, 1).live_range.has_value());
}

TEST(BufferAssignmentParser, ShapeItCannotReadIsKeptAsText) {
  absl::StatusOr<ir::Program> p = ParseText(R"(allocation 0: size 16:
 value: <1 x @0> (size=16,offset=0): f99[4]{0}
)");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(ValueAt(*p, 1).shape_text, "f99[4]{0}");
  EXPECT_EQ(ValueAt(*p, 1).shape.dtype, ir::DType::kInvalid);
  EXPECT_EQ(ValueAt(*p, 1).size, 16);
  ASSERT_EQ(p->diagnostics.warnings().size(), 1u);
  EXPECT_EQ(p->diagnostics.warnings()[0].kind, "shape not understood (kept as text)");
}

// ---------------------------------------------------------------------------
// Errors: "name:line:col: error: expected ..."

std::string ErrorOf(std::string_view text) {
  absl::StatusOr<ir::Program> p = ParseText(text, "bad.txt");
  EXPECT_FALSE(p.ok());
  if (p.ok()) return "";
  EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(p.status().message());
}

TEST(BufferAssignmentParserErrors, BadAllocationHeader) {
  const std::string e = ErrorOf("BufferAssignment:\nallocation 0: size abc:\n");
  EXPECT_TRUE(e.starts_with("bad.txt:2:20: error: expected the allocation size in bytes")) << e;
  // Like a compiler: the offending line and a caret under the column.
  EXPECT_NE(e.find("\nallocation 0: size abc:\n                   ^"), std::string::npos) << e;
}

TEST(BufferAssignmentParserErrors, NegativeSizeIsReportedWhereTheNumberStarts) {
  const std::string e = ErrorOf("BufferAssignment:\nallocation 0: size -4:\n");
  EXPECT_TRUE(e.starts_with("bad.txt:2:20: error: expected the allocation size in bytes")) << e;
  const std::string v = ErrorOf("allocation 0: size 16:\n value: <1 x @0> (size=-16,offset=0): f32[4]\n");
  EXPECT_TRUE(v.starts_with("bad.txt:2:24: error: expected the value size in bytes")) << v;
  const std::string t = ErrorOf("allocation 0: size 16:\nTotal bytes used: -1\n");
  EXPECT_TRUE(t.starts_with("bad.txt:2:19: error: expected the total number of bytes")) << t;
}

TEST(BufferAssignmentParserErrors, HeaderWithoutClosingColon) {
  const std::string e = ErrorOf("allocation 0: size 16, constant\n");
  EXPECT_TRUE(e.starts_with("bad.txt:1:32: error: expected ':' ending the allocation header"))
      << e;
}

TEST(BufferAssignmentParserErrors, DuplicateAllocation) {
  const std::string e = ErrorOf("allocation 3: size 16:\nallocation 3: size 8:\n");
  EXPECT_TRUE(e.starts_with("bad.txt:2:13: error: allocation 3 is listed twice")) << e;
}

TEST(BufferAssignmentParserErrors, BadValueLine) {
  const std::string e =
      ErrorOf("allocation 0: size 16:\n value: <3 x @0> (size=16,ofset=0): f32[4]{0}\n");
  EXPECT_TRUE(e.starts_with("bad.txt:2:26: error: expected ',offset='")) << e;
  const std::string id = ErrorOf("allocation 0: size 16:\n value: <x @0> (size=16,offset=0): f32[]\n");
  EXPECT_TRUE(id.starts_with("bad.txt:2:10: error: expected a value id")) << id;
  const std::string color =
      ErrorOf("allocation 0: size 16:\n value: <3 x> (size=16,offset=0): f32[4]{0}\n");
  EXPECT_TRUE(color.starts_with("bad.txt:2:13: error: expected ' @color'")) << color;
}

TEST(BufferAssignmentParserErrors, ValueBeforeAnyAllocation) {
  const std::string e = ErrorOf("BufferAssignment:\n value: <3 x @0> (size=16,offset=0): f32[4]{0}\n");
  EXPECT_TRUE(e.starts_with("bad.txt:2:1: error: expected an 'allocation N: size S' header"))
      << e;
}

TEST(BufferAssignmentParserErrors, BadLiveRange) {
  const std::string backwards = ErrorOf(
      "allocation 0: size 16:\n value: <1 x @0> (size=16,offset=0): f32[4]{0}\n"
      "HloLiveRange (max 4):\n  BufferLiveRange:\n    x{}:3-1\n");
  EXPECT_TRUE(backwards.starts_with(
      "bad.txt:5:5: error: expected a live range whose end is not before its start"))
      << backwards;
  const std::string truncated = ErrorOf(
      "allocation 0: size 16:\n value: <1 x @0> (size=16,offset=0): f32[4]{0}\n"
      "HloLiveRange (max 4):\n  BufferLiveRange:\n    x{}:3\n");
  EXPECT_TRUE(truncated.starts_with("bad.txt:5:10: error: expected ':start-end'")) << truncated;
  const std::string header = ErrorOf("HloLiveRange (max four):\n");
  EXPECT_TRUE(header.starts_with("bad.txt:1:19: error: expected the last schedule step")) << header;
}

TEST(BufferAssignmentParserErrors, ScheduleStepsMustCountUp) {
  const std::string e = ErrorOf("HloLiveRange (max 4):\n  InstructionSequence:\n    0:a\n    2:b\n");
  EXPECT_TRUE(e.starts_with("bad.txt:4:5: error: expected schedule step 1, found 2")) << e;
}

TEST(BufferAssignmentParserErrors, NotABufferAssignmentAtAll) {
  const std::string e = ErrorOf("hello\nworld\n");
  EXPECT_TRUE(e.starts_with("bad.txt:1:1: error: expected an XLA buffer assignment")) << e;
  const std::string empty = ErrorOf("");
  EXPECT_TRUE(empty.starts_with("bad.txt:1:1: error: expected an XLA buffer assignment")) << empty;
}

TEST(BufferAssignmentParserErrors, NoFilesIsAnError) {
  EXPECT_FALSE(parsers::ParseBufferAssignment({}, ir::Program::Named("m")).ok());
}

TEST(LooksLikeBufferAssignment, Sniffs) {
  EXPECT_TRUE(parsers::LooksLikeBufferAssignment("BufferAssignment:\nallocation 0: size 4:"));
  EXPECT_TRUE(parsers::LooksLikeBufferAssignment("allocation 0: size 4:\n"));
  EXPECT_TRUE(parsers::LooksLikeBufferAssignment("HloLiveRange (max 3):\n"));
  EXPECT_TRUE(parsers::LooksLikeBufferAssignment("Used values:\n<1 x @0>\n"));
  EXPECT_FALSE(parsers::LooksLikeBufferAssignment("HloModule jit_f\n"));
  EXPECT_FALSE(parsers::LooksLikeBufferAssignment(""));
}

}  // namespace
}  // namespace memplan
