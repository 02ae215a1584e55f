// Liveness, peaks, shard propagation and flops on jaxprs small enough to
// count by hand: each expected number is worked out in the comment above it.
#include <string>

#include "analyzer/jaxpr_flops.h"
#include "analyzer/jaxpr_liveness.h"
#include "analyzer/jaxpr_schedule.h"
#include "gtest/gtest.h"
#include "parsers/jaxpr_parser.h"
#include "tests/test_util.h"

namespace memplan {
namespace {

struct Analyzed {
  ir::JaxprModule module;
  analyzer::JaxprSchedule schedule;
  analyzer::JaxprLiveness liveness;
};

Analyzed Analyze(std::string_view text, analyzer::JaxprScheduleOptions options = {}) {
  Analyzed out;
  auto source = parsers::SourceText::FromString("t.jaxpr", text);
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return out;
  out.module = *std::move(module);
  absl::StatusOr<analyzer::JaxprSchedule> schedule = analyzer::ScheduleJaxpr(out.module, options);
  EXPECT_TRUE(schedule.ok()) << schedule.status();
  if (!schedule.ok()) return out;
  out.schedule = *std::move(schedule);
  out.liveness = analyzer::ComputeJaxprLiveness(out.module, out.schedule);
  return out;
}

std::string NameAt(const Analyzed& a, size_t i) {
  const analyzer::JaxprBuffer& b = a.schedule.buffers[a.liveness.live_at_peak[i]];
  return b.var.valid() ? a.module.var(b.var).name : "";
}

// Arguments a, b: 4 KiB each, live throughout. c (4 KiB) lives steps 0-1,
// d (4 KiB) steps 1-2, e (4 B, the output) from step 2. Step 1 holds
// a + b + c + d = 16,384; temporaries peak there at c + d = 8,192.
constexpr std::string_view kChain = R"({ lambda ; a:f32[1024] b:f32[1024]. let
    c:f32[1024] = add a b
    d:f32[1024] = mul c c
    e:f32[] = reduce_sum[axes=(0,)] d
  in (e,) })";

TEST(JaxprLiveness, ValuesLiveFromDefinitionToLastUse) {
  const Analyzed a = Analyze(kChain);
  ASSERT_EQ(a.schedule.steps.size(), 3u);
  EXPECT_EQ(a.liveness.argument_bytes, 8192);
  EXPECT_EQ(a.liveness.output_bytes, 4);
  EXPECT_EQ(a.liveness.peak.total(), 16384);
  EXPECT_EQ(a.liveness.peak_step, 1);
  EXPECT_EQ(a.liveness.peak.arguments, 8192);
  EXPECT_EQ(a.liveness.peak.temps, 8192);
  EXPECT_EQ(a.liveness.temp_peak_bytes, 8192);
  // Step 2: a + b + d + e.
  EXPECT_EQ(a.liveness.timeline[2].total(), 8192 + 4096 + 4);
  ASSERT_EQ(a.liveness.live_at_peak.size(), 4u);
  // Largest first, then by defining step: the arguments (step 0), c, d.
  EXPECT_EQ(NameAt(a, 0), "a");
  EXPECT_EQ(NameAt(a, 1), "b");
  EXPECT_EQ(NameAt(a, 2), "c");
  EXPECT_EQ(NameAt(a, 3), "d");
  // At step 1 the output e (4 B) is not yet written: 4 bytes of c and d
  // can use its memory, so 8,188 do not fit. Footprint: 8,192 + 4 + 8,188.
  EXPECT_EQ(a.liveness.arena_peak_bytes, 8188);
  EXPECT_EQ(a.liveness.arena_peak_step, 1);
  EXPECT_EQ(a.liveness.PredictedFootprint(), 16384);
}

// Donating a and b frees them after step 0 (their last use): step 1 holds
// c + d = 8,192 and the peak is step 0, a + b + c = 12,288.
TEST(JaxprLiveness, DonatedArgumentsDieAtTheirLastUse) {
  analyzer::JaxprScheduleOptions options;
  options.donated = {true, true};
  const Analyzed a = Analyze(kChain, options);
  EXPECT_EQ(a.liveness.donated_bytes, 8192);
  EXPECT_EQ(a.liveness.aliased_bytes, 0);  // no output of f32[1024] to pair with
  EXPECT_EQ(a.liveness.timeline[1].total(), 8192);
  EXPECT_EQ(a.liveness.peak.total(), 12288);
  EXPECT_EQ(a.liveness.peak_step, 0);
}

// The same computation behind pjit and named_call: calls add no memory, so
// the numbers are kChain's; the header steps of the two calls add steps
// but hold what is live around them.
TEST(JaxprLiveness, CallsAreInlined) {
  const Analyzed a = Analyze(R"({ lambda ; a:f32[1024] b:f32[1024]. let
    c:f32[1024] = pjit[name=first jaxpr={ lambda ; x:f32[1024] y:f32[1024]. let
        z:f32[1024] = add x y
      in (z,) }] a b
    e:f32[] = named_call[call_jaxpr={ lambda ; u:f32[1024]. let
        v:f32[1024] = mul u u
        w:f32[] = reduce_sum[axes=(0,)] v
      in (w,) } name=second] c
  in (e,) })");
  EXPECT_EQ(a.schedule.inlined_calls, 2);
  ASSERT_EQ(a.schedule.steps.size(), 5u);
  EXPECT_EQ(a.liveness.peak.total(), 16384);
  EXPECT_EQ(a.liveness.temp_peak_bytes, 8192);
  EXPECT_EQ(a.liveness.output_bytes, 4);
  // The mul runs inside the named_call, whose header is step 2.
  EXPECT_EQ(a.schedule.steps[a.liveness.peak_step].parent, 2);
}

// Not inlined, the named_call is one step charged with its callee's
// temporaries' peak: v, 4 KiB (w is the callee's output, which becomes the
// call's e). At that step c is live too: 8,192 of temporaries.
TEST(JaxprLiveness, OpaqueCallsChargeTheirCalleesTemporaries) {
  analyzer::JaxprScheduleOptions options;
  options.inline_calls = false;
  const Analyzed a = Analyze(R"({ lambda ; a:f32[1024] b:f32[1024]. let
    c:f32[1024] = add a b
    e:f32[] = named_call[call_jaxpr={ lambda ; u:f32[1024]. let
        v:f32[1024] = mul u u
        w:f32[] = reduce_sum[axes=(0,)] v
      in (w,) } name=second] c
  in (e,) })", options);
  ASSERT_EQ(a.schedule.steps.size(), 2u);
  EXPECT_EQ(a.schedule.steps[1].opaque_temp_bytes, 4096);
  EXPECT_EQ(a.liveness.temp_peak_bytes, 8192);
}

// A scan of 8 iterations over xs:f32[8,256] with carry f32[256]:
// header step 0 defines the loop state (1 KiB carry, 8 KiB ys); the body
// step 1 reads the carry and a 1 KiB slice (its only use), defining t
// (1 KiB); step 2 defines u (1 KiB). At step 2: init (1 KiB) + xs (8 KiB)
// as arguments, the loop state 9 KiB as outputs, t + u = 2 KiB of
// temporaries; at step 1 slice + t, also 2 KiB.
TEST(JaxprLiveness, ScanBodiesAreLoops) {
  const Analyzed a = Analyze(R"({ lambda ; c:f32[256] xs:f32[8,256]. let
    d:f32[256] ys:f32[8,256] = scan[jaxpr={ lambda ; x:f32[256] y:f32[256]. let
        t:f32[256] = add x y
        u:f32[256] = mul t 2.0:f32[]
      in (t, u) } length=8 linear=(False, False) num_carry=1 num_consts=0 reverse=False unroll=1] c xs
  in (d, ys) })");
  EXPECT_EQ(a.schedule.regions, 1);
  ASSERT_EQ(a.schedule.steps.size(), 3u);
  EXPECT_EQ(a.liveness.output_bytes, 1024 + 8192);
  EXPECT_EQ(a.liveness.timeline[2].arguments, 1024 + 8192);
  EXPECT_EQ(a.liveness.timeline[2].outputs, 1024 + 8192);
  EXPECT_EQ(a.liveness.timeline[1].temps, 2 * 1024);
  EXPECT_EQ(a.liveness.timeline[2].temps, 2 * 1024);
  EXPECT_EQ(a.liveness.temp_peak_bytes, 2 * 1024);
}

// Tiles carry through: x:f32[128,2048] split 2 ways on its batch gives
// 512 KiB per device; the dot with a replicated w:f32[2048,512] keeps the
// batch split (128/2 x 512 x 4 = 128 KiB); the weight gradient contracts
// the batch away, so it is whole (2048 x 512 x 4 = 4 MiB); the transpose
// of the activation keeps the split on its new dimension 1.
TEST(JaxprLiveness, ShardingsCarryThroughEquations) {
  analyzer::JaxprScheduleOptions options;
  options.input_tiles = {{2, 1}, {}};
  const Analyzed a = Analyze(R"({ lambda ; x:f32[128,2048] w:f32[2048,512]. let
    y:f32[128,512] = dot_general[dimension_numbers=(([1], [0]), ([], []))] x w
    r:f32[128,512] = max y 0.0:f32[]
    g:f32[2048,512] = dot_general[dimension_numbers=(([0], [0]), ([], []))] x r
    t:f32[2048,128] = transpose[permutation=(1, 0)] x
    s:f32[128] = reduce_sum[axes=(1,)] r
    b:f32[4,32,512] = reshape[dimensions=None new_sizes=(4, 32, 512)] r
  in (g, t, s, b) })", options);
  auto bytes_of = [&](std::string_view name) -> int64_t {
    for (const analyzer::JaxprBuffer& b : a.schedule.buffers) {
      if (b.var.valid() && a.module.var(b.var).name == name) return b.bytes;
    }
    return -1;
  };
  EXPECT_EQ(bytes_of("x"), 64 * 2048 * 4);
  EXPECT_EQ(bytes_of("w"), 2048 * 512 * 4);
  EXPECT_EQ(bytes_of("y"), 64 * 512 * 4);
  EXPECT_EQ(bytes_of("r"), 64 * 512 * 4);
  EXPECT_EQ(bytes_of("g"), 2048 * 512 * 4);
  EXPECT_EQ(bytes_of("t"), 2048 * 64 * 4);
  EXPECT_EQ(bytes_of("s"), 64 * 4);
  // [128, 512] -> [4, 32, 512]: 128 is split, not kept, so the reshape
  // keeps only the trailing 512 and is whole.
  EXPECT_EQ(bytes_of("b"), 128 * 512 * 4);
}

// Donated inputs pair with outputs of the same aval, in order, once each.
TEST(JaxprLiveness, DonatedInputsPairWithOutputs) {
  analyzer::JaxprScheduleOptions options;
  options.donated = {true, true, false};
  const Analyzed a = Analyze(R"({ lambda ; p:f32[64] q:f32[32] g:f32[64]. let
    r:f32[64] = sub p g
  in (r, g) })", options);
  const std::vector<int32_t> paired = analyzer::PairDonatedInputs(a.module, a.schedule);
  ASSERT_EQ(paired.size(), 3u);
  EXPECT_EQ(paired[0], 0);   // p with r
  EXPECT_EQ(paired[1], -1);  // nothing of f32[32]
  EXPECT_EQ(paired[2], -1);  // not donated
  EXPECT_EQ(a.liveness.aliased_bytes, 256);
  EXPECT_EQ(a.liveness.donated_bytes, 256 + 128);
}

// dot_general: 2 x 64 x 32 x 128 (output elements x contracting size);
// conv: a 1x3x8x8 input, 4x3x3x3 kernel, padding 1, stride 1: per spatial
// dimension the valid (output, kernel) pairs are 8 x 3 - 2 = 22, so
// 2 x 3 input features x 4 output features x 1 batch x 22 x 22.
TEST(JaxprFlops, DotAndConvolutionAreExact) {
  const Analyzed a = Analyze(R"({ lambda ; x:f32[64,128] w:f32[128,32] i:f32[1,3,8,8] k:f32[4,3,3,3]. let
    y:f32[64,32] = dot_general[dimension_numbers=(([1], [0]), ([], []))] x w
    c:f32[1,4,8,8] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2, 3), rhs_spec=(0, 1, 2, 3), out_spec=(0, 1, 2, 3))
      feature_group_count=1
      lhs_dilation=(1, 1)
      padding=((1, 1), (1, 1))
      precision=None
      preferred_element_type=None
      rhs_dilation=(1, 1)
      window_strides=(1, 1)
    ] i k
    e:f32[64,32] = exp y
    s:f32[] = reduce_sum[axes=(0, 1)] e
  in (s, c) })");
  const analyzer::JaxprFlops f = analyzer::CountJaxprFlops(a.module, a.module.top);
  EXPECT_EQ(f.matmul, 2.0 * 64 * 32 * 128 + 2.0 * 3 * 4 * 22 * 22);
  EXPECT_EQ(f.transcendentals, 64 * 32);
  EXPECT_EQ(f.elementwise, 64 * 32 - 1);
  EXPECT_EQ(f.uncounted_equations, 0);
}

// A scan multiplies its body by length; cond counts its larger branch.
TEST(JaxprFlops, LoopsAndBranches) {
  const Analyzed a = Analyze(R"({ lambda ; c:f32[16,16] p:i32[]. let
    d:f32[16,16] = scan[jaxpr={ lambda ; x:f32[16,16]. let
        y:f32[16,16] = dot_general[dimension_numbers=(([1], [0]), ([], []))] x x
      in (y,) } length=5 linear=(False,) num_carry=1 num_consts=0 reverse=False unroll=1] c
    e:f32[16,16] = cond[branches=(
      { lambda ; u:f32[16,16]. let v:f32[16,16] = neg u in (v,) }
      { lambda ; u:f32[16,16]. let v:f32[16,16] = dot_general[dimension_numbers=(([1], [0]), ([], []))] u u in (v,) }
    )] p d
  in (e,) })");
  const analyzer::JaxprFlops f = analyzer::CountJaxprFlops(a.module, a.module.top);
  EXPECT_EQ(f.matmul, 6 * 2.0 * 16 * 16 * 16);
  // The cond's branches run one after another in the schedule; each frees
  // its own values, so the temporaries' peak is one branch's.
  EXPECT_EQ(a.schedule.regions, 2);
}

TEST(JaxprSchedule, RefusesHugeExpansions) {
  analyzer::JaxprScheduleOptions options;
  options.max_steps = 2;
  auto source = parsers::SourceText::FromString("t.jaxpr", kChain);
  absl::StatusOr<ir::JaxprModule> module = parsers::ParseJaxpr(*source);
  ASSERT_TRUE(module.ok());
  absl::StatusOr<analyzer::JaxprSchedule> schedule = analyzer::ScheduleJaxpr(*module, options);
  ASSERT_FALSE(schedule.ok());
  EXPECT_NE(schedule.status().message().find("more than 2 steps"), std::string::npos);
}

TEST(JaxprSniff, RecognisesJaxprDocuments) {
  EXPECT_TRUE(parsers::LooksLikeJaxpr("{ lambda ; a:f32[]. let  in (a,) }"));
  EXPECT_TRUE(parsers::LooksLikeJaxpr("# note\n// more\n  let relu = { lambda ; a:f32[2]. let"));
  EXPECT_TRUE(parsers::LooksLikeJaxpr("{\n  lambda a:f32[3]; b. let"));
  EXPECT_FALSE(parsers::LooksLikeJaxpr("HloModule m\n"));
  EXPECT_FALSE(parsers::LooksLikeJaxpr("let = { lambda"));
  EXPECT_FALSE(parsers::LooksLikeJaxpr("{ \"traceEvents\": [] }"));
}

}  // namespace
}  // namespace memplan

namespace memplan {
namespace {

// `memplan analyze` on a jaxpr and on seed 003: the table, exit codes,
// located errors, no partial output, the same bytes twice.
TEST(JaxprCli, AnalyzesJaxprsAndAlpaLogs) {
  test::TempDir dir;
  const std::string seed = test::SourcePath("samples/alpa/seed003_alpa_stage_profile_jaxpr.txt");
  test::CommandResult alpa = test::RunCommand({MEMPLAN_BINARY, "analyze", seed}, dir.path());
  ASSERT_EQ(alpa.exit_code, 0) << alpa.err;
  for (const char* figure : {"276,119,952", "745,439,776", "268,517,920", "203,464,704"}) {
    EXPECT_NE(alpa.out.find(figure), std::string::npos) << figure << "\n" << alpa.out;
  }
  test::CommandResult alpa_json = test::RunCommand({MEMPLAN_BINARY, "analyze", seed, "--format=json"}, dir.path());
  ASSERT_EQ(alpa_json.exit_code, 0) << alpa_json.err;
  EXPECT_NE(alpa_json.out.find("\"alpa_peak_memory\": 745439776"), std::string::npos) << alpa_json.out;

  ASSERT_TRUE(test::WriteFile(dir.File("f.jaxpr"), std::string(kChain)));
  test::CommandResult text = test::RunCommand({MEMPLAN_BINARY, "analyze", dir.File("f.jaxpr")}, dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Live peak: 16,384 B"), std::string::npos) << text.out;
  test::CommandResult json = test::RunCommand(
      {MEMPLAN_BINARY, "analyze", dir.File("f.jaxpr"), "--format=json", "--donate=0-1"}, dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"donated_bytes\": 8192"), std::string::npos) << json.out;
  test::CommandResult again = test::RunCommand(
      {MEMPLAN_BINARY, "analyze", dir.File("f.jaxpr"), "--format=json", "--donate=0-1"}, dir.path());
  EXPECT_EQ(json.out, again.out);

  EXPECT_EQ(test::RunCommand({MEMPLAN_BINARY, "analyze", dir.File("f.jaxpr"), "--format=dot"}, dir.path()).exit_code, 2);
  EXPECT_EQ(test::RunCommand({MEMPLAN_BINARY, "analyze", dir.File("f.jaxpr"), "--donate=x"}, dir.path()).exit_code, 2);
  ASSERT_TRUE(test::WriteFile(dir.File("bad.jaxpr"), "{ lambda ; a:f32[4]. let\n    b:f32[4] = add a zz\n  in (b,) }\n"));
  test::CommandResult bad = test::RunCommand(
      {MEMPLAN_BINARY, "analyze", dir.File("bad.jaxpr"), "-o", dir.File("out.txt")}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("bad.jaxpr:2:"), std::string::npos) << bad.err;
  EXPECT_FALSE(test::FileExists(dir.File("out.txt")));
}

}  // namespace
}  // namespace memplan
