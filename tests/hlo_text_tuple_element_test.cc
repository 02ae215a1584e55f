// Operands spelled "%x#N": newer XLA (JAX 0.11's, seen on the GPU dumps in
// samples/jax_gpu) prints a get-tuple-element only at its users, so the
// parser makes one get-tuple-element per distinct (x, N) of a computation.
// The expected values are read off the inputs by hand.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/strings.h"
#include "parsers/hlo_text_parser.h"

namespace memplan {
namespace {

struct Parsed {
  std::shared_ptr<const parsers::SourceText> source;
  ir::Module module;
  ir::Diagnostics diagnostics;
  absl::Status status;

  ir::InstructionId Id(std::string_view name) const {
    for (const ir::Instruction& i : module.instructions()) {
      if (i.name == name) return i.id;
    }
    ADD_FAILURE() << "no instruction " << name;
    return {};
  }
  const ir::Instruction& I(std::string_view name) const { return module.instruction(Id(name)); }
  std::vector<std::string_view> EntryOrder() const {
    std::vector<std::string_view> names;
    for (ir::InstructionId id : module.entry_computation()->instructions) {
      names.push_back(module.instruction(id).name);
    }
    return names;
  }
};

std::unique_ptr<Parsed> Parse(std::string_view body) {
  auto p = std::make_unique<Parsed>();
  p->source = parsers::SourceText::FromString(
      "input.hlo", StrCat("HloModule m\n\nENTRY %main (p0: f32[8]) -> f32[8] {\n"
                          "  %p0 = f32[8]{0} parameter(0)\n",
                          body, "}\n"));
  p->status = parsers::ParseHloModuleText(*p->source, &p->module, &p->diagnostics);
  return p;
}

// The first line of the error ("input.hlo:L:C: error: expected ...").
std::string ErrorLine(std::string_view body) {
  auto p = Parse(body);
  EXPECT_FALSE(p->status.ok()) << "parsed: " << body;
  const std::string message(p->status.message());
  return message.substr(0, message.find('\n'));
}

constexpr std::string_view kTuple =
    "  %t = (f32[8]{0}, s32[], f32[2,4]{1,0}) custom-call(%p0), custom_call_target=\"f\"\n";

TEST(HloTextTupleElement, OneGetTupleElementPerElementBeforeItsFirstUser) {
  auto p = Parse(StrCat(kTuple,
                        "  %a = f32[8]{0} add(%t#0, %t#0)\n"
                        "  %b = f32[2,4]{1,0} negate(%t#2)\n"
                        "  ROOT %c = f32[8]{0} negate(%t#0)\n"));
  ASSERT_TRUE(p->status.ok()) << p->status;
  EXPECT_EQ(p->EntryOrder(),
            (std::vector<std::string_view>{"p0", "t", "t#0", "a", "t#2", "b", "c"}));
  const ir::Instruction& e0 = p->I("t#0");
  EXPECT_EQ(e0.opcode, ir::Opcode::kGetTupleElement);
  EXPECT_EQ(e0.opcode_text, "get-tuple-element");
  EXPECT_EQ(ir::ShapeToString(e0.shape), "f32[8]{0}");
  EXPECT_EQ(e0.operands, (std::vector<ir::InstructionId>{p->Id("t")}));
  EXPECT_EQ(p->module.attributes(e0.id).tuple_index, 0);
  EXPECT_EQ(ir::ShapeToString(p->I("t#2").shape), "f32[2,4]{1,0}");
  EXPECT_EQ(p->module.attributes(p->Id("t#2")).tuple_index, 2);
  // Every use of "t#0" reads the one instruction.
  EXPECT_EQ(p->I("a").operands, (std::vector<ir::InstructionId>{e0.id, e0.id}));
  EXPECT_EQ(p->I("c").operands, (std::vector<ir::InstructionId>{e0.id}));
  EXPECT_EQ(p->I("b").operands, (std::vector<ir::InstructionId>{p->Id("t#2")}));
  EXPECT_EQ(p->module.instruction_count(), 7u);
}

TEST(HloTextTupleElement, ATupleDefinedLaterGetsItsElementRightAfterIt) {
  auto p = Parse(StrCat("  %a = s32[] negate(%t#1)\n", kTuple, "  ROOT %c = f32[8]{0} negate(%t#0)\n"));
  ASSERT_TRUE(p->status.ok()) << p->status;
  EXPECT_EQ(p->EntryOrder(), (std::vector<std::string_view>{"p0", "a", "t", "t#1", "t#0", "c"}));
  EXPECT_EQ(p->I("a").operands, (std::vector<ir::InstructionId>{p->Id("t#1")}));
  EXPECT_EQ(ir::ShapeToString(p->I("t#1").shape), "s32[]");
}

TEST(HloTextTupleElement, LocatedErrors) {
  EXPECT_EQ(ErrorLine(StrCat(kTuple, "  ROOT %c = f32[8]{0} negate(%t#)\n")),
            "input.hlo:6:33: error: expected a tuple index (0, 1, ...) after '#'");
  EXPECT_EQ(ErrorLine(StrCat(kTuple, "  ROOT %c = f32[8]{0} negate(%t#-1)\n")),
            "input.hlo:6:35: error: expected a tuple index (0, 1, ...) after '#'");
  EXPECT_EQ(ErrorLine("  ROOT %c = f32[8]{0} negate(%p0#0)\n"),
            "input.hlo:5:30: error: expected 'p0' to be a tuple of more than 0 elements (for '#0')");
  EXPECT_EQ(ErrorLine(StrCat(kTuple, "  ROOT %c = f32[8]{0} negate(%t#3)\n")),
            "input.hlo:6:30: error: expected 't' to be a tuple of more than 3 elements (for '#3')");
  EXPECT_EQ(ErrorLine(StrCat("  %a = s32[] negate(%t#7)\n", kTuple, "  ROOT %c = f32[8]{0} negate(%p0)\n")),
            "input.hlo:5:21: error: expected 't' to be a tuple of more than 7 elements (for '#7')");
  EXPECT_EQ(ErrorLine("  ROOT %c = f32[8]{0} negate(%nowhere#0)\n"),
            "input.hlo:5:30: error: expected the name of an instruction of computation 'main', not 'nowhere'");
}

}  // namespace
}  // namespace memplan
