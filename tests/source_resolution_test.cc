// The origin resolver's rules on small modules written as XLA prints them:
// which instruction's metadata stands for a value.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "analyzer/source_resolution.h"
#include "ir/diagnostics.h"
#include "parsers/hlo_text_parser.h"
#include "parsers/source_text.h"

namespace memplan {
namespace {

struct Parsed {
  std::shared_ptr<const parsers::SourceText> source;
  ir::Module module;
};

std::unique_ptr<Parsed> Parse(std::string text) {
  auto p = std::make_unique<Parsed>();
  p->source = parsers::SourceText::FromString("m.txt", std::move(text));
  ir::Diagnostics diagnostics;
  absl::Status s = parsers::ParseHloModuleText(*p->source, &p->module, &diagnostics);
  EXPECT_TRUE(s.ok()) << s;
  return p;
}

ir::InstructionId Named(const ir::Module& m, std::string_view name) {
  for (const ir::Instruction& i : m.instructions()) {
    if (i.name == name) return i.id;
  }
  ADD_FAILURE() << "no instruction " << name;
  return {};
}

std::string OpNameOf(const ir::Module& m, std::string_view name, ir::ShapeIndex index = {}) {
  analyzer::OriginResolver resolver(m);
  analyzer::ValueOrigin o = resolver.Resolve(Named(m, name), index);
  return o.op == nullptr ? "(none)" : std::string(o.op->op_name);
}

TEST(SourceResolution, FusionStandsForItsBodyNotANearerOperand) {
  auto p = Parse(R"(HloModule m, is_scheduled=true

%fused (a: f32[8], b: f32[8]) -> f32[8] {
  %a = f32[8]{0} parameter(0)
  %b = f32[8]{0} parameter(1)
  %c = f32[8]{0} convert(%a)
  %mul = f32[8]{0} multiply(%c, %b), metadata={op_name="jit(f)/mul"}
  ROOT %out = f32[8]{0} convert(%mul)
}

ENTRY %main (x: f32[8], y: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0), metadata={op_name="x"}
  %y = f32[8]{0} parameter(1), metadata={op_name="y"}
  ROOT %fusion = f32[8]{0} fusion(%x, %y), kind=kLoop, calls=%fused
}
)");
  // The operands' metadata is one edge away; the multiply is three.
  EXPECT_EQ(OpNameOf(p->module, "fusion"), "jit(f)/mul");
}

constexpr char kLoop[] = R"(HloModule m, is_scheduled=true

%cond (s: (s32[], f32[4])) -> pred[] {
  %s = (s32[], f32[4]{0}) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %n), direction=LT, metadata={op_name="jit(f)/while/cond/lt"}
}

%body (t: (s32[], f32[4])) -> (s32[], f32[4]) {
  %t = (s32[], f32[4]{0}) parameter(0)
  %j = s32[] get-tuple-element(%t), index=0
  %v = f32[4]{0} get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %k = s32[] add(%j, %one), metadata={op_name="jit(f)/while/body/add"}
  %w = f32[4]{0} sine(%v), metadata={op_name="jit(f)/while/body/sin"}
  ROOT %r = (s32[], f32[4]{0}) tuple(%k, %w)
}

ENTRY %main () -> (s32[], f32[4]) {
  %zero = s32[] constant(0)
  %c0 = f32[] constant(0)
  %init = f32[4]{0} broadcast(%c0), dimensions={}
  %tup = (s32[], f32[4]{0}) tuple(%zero, %init)
  ROOT %loop = (s32[], f32[4]{0}) while(%tup), condition=%cond, body=%body, metadata={op_name="jit(f)/while"}
}
)";

TEST(SourceResolution, LoopConditionParameterHoldsTheBodysResult) {
  auto p = Parse(kLoop);
  // Not the condition's own predicate.
  EXPECT_EQ(OpNameOf(p->module, "s", {1}), "jit(f)/while/body/sin");
  EXPECT_EQ(OpNameOf(p->module, "t", {0}), "jit(f)/while/body/add");
}

TEST(SourceResolution, BytesWithoutMetadataUpstreamAreNamedByTheirUser) {
  auto p = Parse(kLoop);
  analyzer::OriginResolver resolver(p->module);
  analyzer::ValueOrigin o = resolver.Resolve(Named(p->module, "init"), {});
  ASSERT_NE(o.op, nullptr);
  EXPECT_EQ(o.op->op_name, "jit(f)/while");
  EXPECT_EQ(o.op_origin, analyzer::MetadataOrigin::kUser);
}

TEST(SourceResolution, ArgumentsAreNotNamedByTheirUsers) {
  auto p = Parse(R"(HloModule m

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %n = f32[8]{0} negate(%x), metadata={op_name="jit(f)/neg"}
}
)");
  analyzer::OriginResolver resolver(p->module);
  analyzer::ValueOrigin o = resolver.Resolve(Named(p->module, "x"), {});
  EXPECT_EQ(o.op, nullptr);
  EXPECT_TRUE(o.argument.valid());
}

}  // namespace
}  // namespace memplan
