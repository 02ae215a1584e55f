// Compute cost (simulator/hlo_cost.h, simulator/compute_cost.h) on modules
// built here, instruction by instruction. Expected values are computed by
// hand from XLA's HloCostAnalysis rules; where a comment says "XLA:", the
// same program compiled by jax 0.10.2 (CPU) reported that figure in
// compiled.cost_analysis().
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ir/module.h"
#include "simulator/compute_cost.h"
#include "simulator/hardware_loader.h"
#include "simulator/hlo_cost.h"

namespace memplan::simulator {
namespace {

using ir::DType;
using ir::InstructionId;
using ir::Opcode;

ir::Shape Array(DType t, std::vector<int64_t> dims, std::vector<int64_t> minor_to_major = {}) {
  ir::Shape s;
  s.dtype = t;
  s.dims = std::move(dims);
  ir::Layout layout;
  if (minor_to_major.empty()) {
    for (int64_t d = static_cast<int64_t>(s.dims.size()) - 1; d >= 0; --d) {
      layout.minor_to_major.push_back(d);
    }
  } else {
    layout.minor_to_major = std::move(minor_to_major);
  }
  s.layout = layout;
  return s;
}

ir::Shape Tuple(std::vector<ir::Shape> elements) {
  ir::Shape s;
  s.dtype = DType::kTuple;
  s.tuple_elements = std::move(elements);
  return s;
}

// Builds a module computation by computation.
class Builder {
 public:
  ir::ComputationId Computation(std::string_view name) {
    ir::Computation c;
    c.name = name;
    current_ = module.AddComputation(std::move(c));
    return current_;
  }
  InstructionId Add(Opcode op, ir::Shape shape, std::vector<InstructionId> operands = {},
                    std::vector<ir::CalledComputation> calls = {}) {
    ir::Instruction i;
    i.computation = current_;
    i.name = "i";
    i.opcode = op;
    i.shape = module.InternShape(shape);
    i.operands = std::move(operands);
    i.calls = std::move(calls);
    const InstructionId id = module.AddInstruction(std::move(i));
    ir::Computation& c = module.mutable_computation(current_);
    c.instructions.push_back(id);
    c.root = id;
    if (op == Opcode::kParameter) {
      module.mutable_attributes(id).parameter_number = static_cast<int64_t>(c.parameters.size());
      c.parameters.push_back(id);
    }
    return id;
  }
  ir::HloAttributes& Attributes(InstructionId id) { return module.mutable_attributes(id); }
  // An add of two f32 scalars: the usual reduction computation.
  ir::ComputationId AddComputation() {
    const ir::ComputationId saved = current_;
    const ir::ComputationId c = Computation("add");
    const InstructionId a = Add(Opcode::kParameter, Array(DType::kF32, {}));
    const InstructionId b = Add(Opcode::kParameter, Array(DType::kF32, {}));
    Add(Opcode::kAdd, Array(DType::kF32, {}), {a, b});
    current_ = saved;
    return c;
  }
  void Enter(ir::ComputationId c) { current_ = c; }

  ir::Module module;

 private:
  ir::ComputationId current_;
};

TEST(HloCostTest, DotIsTwiceTheMultiplyAdds) {
  // f32[64,128] x f32[128,32]: 2*64*32*128 flops; bytes 64*128*4 + 128*32*4 +
  // 64*32*4. XLA: flops 524288, bytes accessed 57344.
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {64, 128}));
  const InstructionId y = b.Add(Opcode::kParameter, Array(DType::kF32, {128, 32}));
  const InstructionId dot = b.Add(Opcode::kDot, Array(DType::kF32, {64, 32}), {x, y});
  b.Attributes(dot).dot = ir::DotDimensionNumbers{{}, {}, {1}, {0}};
  const HloCostAnalysis a(b.module);
  EXPECT_EQ(a.Cost(dot).flops, 524288);
  EXPECT_EQ(a.Cost(dot).bytes_accessed, 57344);
  EXPECT_EQ(a.ModuleCost().flops, 524288);
  EXPECT_EQ(a.ModuleCost().bytes_accessed, 57344);  // parameters touch nothing
}

TEST(HloCostTest, BatchedDotCountsContractingDimensionsOnly) {
  // bf16[4,16,64] x bf16[4,64,8] -> [4,16,8], batch 0, contracting 2 and 1:
  // 2 * (4*16*8) * 64.
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kBF16, {4, 16, 64}));
  const InstructionId y = b.Add(Opcode::kParameter, Array(DType::kBF16, {4, 64, 8}));
  const InstructionId dot = b.Add(Opcode::kDot, Array(DType::kBF16, {4, 16, 8}), {x, y});
  b.Attributes(dot).dot = ir::DotDimensionNumbers{{0}, {0}, {2}, {1}};
  EXPECT_EQ(HloCostAnalysis(b.module).Cost(dot).flops, 2.0 * 4 * 16 * 8 * 64);
}

TEST(HloCostTest, DotWithoutDimensionNumbersIsUnknown) {
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {8, 8}));
  const InstructionId dot = b.Add(Opcode::kDot, Array(DType::kF32, {8, 8}), {x, x});
  const HloCostAnalysis a(b.module);
  EXPECT_EQ(a.Cost(dot).flops, 0);
  EXPECT_EQ(a.Cost(dot).unknown, 1);
  EXPECT_EQ(a.ModuleCost().unknown, 1);
}

TEST(HloCostTest, ConvolutionCountsValidKernelPositions) {
  // NHWC f32[1,8,8,3] with a 3x3x3x16 kernel, SAME padding (1 each side):
  // per spatial dimension 7 + 8 + 7 = 22 valid (kernel, output) pairs, so
  // 2 * 3 * 16 * 1 * 22 * 22 flops. XLA: flops 46464, bytes accessed 6592.
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {1, 8, 8, 3}));
  const InstructionId k = b.Add(Opcode::kParameter, Array(DType::kF32, {3, 3, 3, 16}));
  const InstructionId conv = b.Add(Opcode::kConvolution, Array(DType::kF32, {1, 8, 8, 16}), {x, k});
  ir::HloAttributes& at = b.Attributes(conv);
  at.convolution = ir::ConvolutionDimensionNumbers{0, 3, {1, 2}, 2, 3, {0, 1}, 0, 3, {1, 2}};
  ir::WindowDimension w;
  w.size = 3;
  w.padding_low = 1;
  w.padding_high = 1;
  at.window = ir::Window{{w, w}};
  const HloCostAnalysis a(b.module);
  EXPECT_EQ(a.Cost(conv).flops, 46464);
  EXPECT_EQ(a.Cost(conv).bytes_accessed, 6592);
}

TEST(HloCostTest, ElementwiseAndTranscendentals) {
  // XLA: exp of f32[64,128]: transcendentals 8192, bytes accessed 65536.
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {64, 128}));
  const InstructionId e = b.Add(Opcode::kExp, Array(DType::kF32, {64, 128}), {x});
  const InstructionId m = b.Add(Opcode::kMultiply, Array(DType::kF32, {64, 128}), {x, e});
  const InstructionId erf = b.Add(Opcode::kErf, Array(DType::kF32, {64, 128}), {m});
  const HloCostAnalysis a(b.module);
  EXPECT_EQ(a.Cost(e).transcendentals, 8192);
  EXPECT_EQ(a.Cost(e).flops, 0);
  EXPECT_EQ(a.Cost(e).bytes_accessed, 65536);
  EXPECT_EQ(a.Cost(m).flops, 8192);
  EXPECT_EQ(a.Cost(m).bytes_accessed, 3 * 32768);
  EXPECT_EQ(a.Cost(erf).transcendentals, 8192);  // XLA counts erf as one too
}

TEST(HloCostTest, FusedReduceReadsItsOperandOnce) {
  // jnp.sum of f32[64,128] as XLA fuses it: fusion(x) { reduce(p0, 0.0) }.
  // flops: 8192 - 1 adds; bytes: the 4-byte output and the parameter read
  // (the scalar constant is not counted). XLA: flops 8191, bytes 32772.
  Builder b;
  const ir::ComputationId add = b.AddComputation();
  const ir::ComputationId fused = b.Computation("fused");
  const InstructionId p = b.Add(Opcode::kParameter, Array(DType::kF32, {64, 128}));
  const InstructionId zero = b.Add(Opcode::kConstant, Array(DType::kF32, {}));
  b.Add(Opcode::kReduce, Array(DType::kF32, {}), {p, zero}, {{add, ir::CallRole::kToApply}});
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {64, 128}));
  const InstructionId fusion =
      b.Add(Opcode::kFusion, Array(DType::kF32, {}), {x}, {{fused, ir::CallRole::kFused}});
  b.Attributes(fusion).fusion_kind = "kCustom";
  const HloCostAnalysis a(b.module);
  EXPECT_EQ(a.Cost(fusion).flops, 8191);
  EXPECT_EQ(a.Cost(fusion).bytes_accessed, 32772);
}

TEST(HloCostTest, FusionReadsSlicesAndWritesDynamicUpdates) {
  // fusion(big f32[1024], update f32[16], i s32[]) whose root is
  // dynamic-update-slice(slice(big)...): the output counts the update's
  // bytes only; the big operand is read as its slice.
  Builder b;
  const ir::ComputationId fused = b.Computation("fused");
  const InstructionId big = b.Add(Opcode::kParameter, Array(DType::kF32, {1024}));
  const InstructionId update = b.Add(Opcode::kParameter, Array(DType::kF32, {16}));
  const InstructionId index = b.Add(Opcode::kParameter, Array(DType::kS32, {}));
  const InstructionId slice = b.Add(Opcode::kSlice, Array(DType::kF32, {256}), {big});
  b.Add(Opcode::kDynamicUpdateSlice, Array(DType::kF32, {256}), {slice, update, index});
  b.module.entry = b.Computation("main");
  const InstructionId a0 = b.Add(Opcode::kParameter, Array(DType::kF32, {1024}));
  const InstructionId a1 = b.Add(Opcode::kParameter, Array(DType::kF32, {16}));
  const InstructionId a2 = b.Add(Opcode::kParameter, Array(DType::kS32, {}));
  const InstructionId fusion = b.Add(Opcode::kFusion, Array(DType::kF32, {256}), {a0, a1, a2},
                                     {{fused, ir::CallRole::kFused}});
  // Output: the update's 64 bytes; reads: big through the slice (1024),
  // the update (64) and the index (4), each by a "trivial" user.
  EXPECT_EQ(HloCostAnalysis(b.module).Cost(fusion).bytes_accessed, 64 + 1024 + 64 + 4);
}

TEST(HloCostTest, DataMovementBytes) {
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {32, 64}));
  const InstructionId slice = b.Add(Opcode::kSlice, Array(DType::kF32, {32, 16}), {x});
  // A transpose whose layouts make it a relabelling moves nothing...
  const InstructionId relabel = b.Add(Opcode::kTranspose, Array(DType::kF32, {64, 32}, {0, 1}), {x});
  b.Attributes(relabel).dimensions = {1, 0};
  // ...one that reorders memory reads and writes everything.
  const InstructionId moved = b.Add(Opcode::kTranspose, Array(DType::kF32, {64, 32}), {x});
  b.Attributes(moved).dimensions = {1, 0};
  const InstructionId gte_source =
      b.Add(Opcode::kTuple, Tuple({Array(DType::kF32, {32, 64}), Array(DType::kF32, {32, 16})}),
            {x, slice});
  const InstructionId gte = b.Add(Opcode::kGetTupleElement, Array(DType::kF32, {32, 64}), {gte_source});
  const HloCostAnalysis a(b.module);
  EXPECT_EQ(a.Cost(slice).bytes_accessed, 2 * 32 * 16 * 4);
  EXPECT_EQ(a.Cost(relabel).bytes_accessed, 0);
  EXPECT_EQ(a.Cost(moved).bytes_accessed, 2 * 32 * 64 * 4);
  EXPECT_EQ(a.Cost(gte_source).bytes_accessed, 16);  // the tuple's two pointers
  EXPECT_EQ(a.Cost(gte).bytes_accessed, 0);
}

TEST(HloCostTest, WhileCountsItsBodyOnceAsXlaDoes) {
  // A 16-trip loop adding f32[64,32]: XLA's flops count the body once; the
  // compute time runs it 16 times (backend_config known_trip_count).
  Builder b;
  const ir::Shape state = Tuple({Array(DType::kS32, {}), Array(DType::kF32, {64, 32})});
  const ir::ComputationId body = b.Computation("body");
  const InstructionId bp = b.Add(Opcode::kParameter, state);
  const InstructionId counter = b.Add(Opcode::kGetTupleElement, Array(DType::kS32, {}), {bp});
  b.Attributes(counter).tuple_index = 0;
  const InstructionId acc = b.Add(Opcode::kGetTupleElement, Array(DType::kF32, {64, 32}), {bp});
  b.Attributes(acc).tuple_index = 1;
  const InstructionId next = b.Add(Opcode::kAdd, Array(DType::kS32, {}), {counter, counter});
  const InstructionId sum = b.Add(Opcode::kAdd, Array(DType::kF32, {64, 32}), {acc, acc});
  b.Add(Opcode::kTuple, state, {next, sum});
  const ir::ComputationId condition = b.Computation("condition");
  const InstructionId cp = b.Add(Opcode::kParameter, state);
  const InstructionId c0 = b.Add(Opcode::kGetTupleElement, Array(DType::kS32, {}), {cp});
  b.Add(Opcode::kCompare, Array(DType::kPred, {}), {c0, c0});
  b.module.entry = b.Computation("main");
  const InstructionId init = b.Add(Opcode::kParameter, state);
  const InstructionId loop = b.Add(Opcode::kWhile, state, {init},
                                   {{body, ir::CallRole::kWhileBody},
                                    {condition, ir::CallRole::kWhileCondition}});
  b.Attributes(loop).backend_config = R"({"known_trip_count":{"n":"16"}})";
  const HloCostAnalysis a(b.module);
  // Body: 1 + 2048 adds; condition: 1 compare.
  EXPECT_EQ(a.Cost(loop).flops, 1 + 2048 + 1);
  const Hardware hw = *LoadHardware("h100");
  const ComputeCost c = AnalyzeCompute(b.module, hw);
  EXPECT_EQ(c.xla.flops, 2050);
  EXPECT_EQ(c.executed_flops, 16 * 2049 + 17 * 1);  // the condition runs once more
  EXPECT_EQ(c.unknown_trip_counts, 0);
  ASSERT_EQ(c.instructions.size(), 2u);
  EXPECT_EQ(c.instructions[1].op_class, OpClass::kControl);
  EXPECT_EQ(c.instructions[1].trip_count, 16);
}

TEST(ComputeCostTest, RooflineTakesTheSlowerSide) {
  // bf16[4096,4096] x bf16[4096,4096] on h100: 2*4096^3 flops at
  // 989.5 TFLOP/s * 0.7, against 3 * 32 MiB at 3.35 TB/s * 0.8.
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kBF16, {4096, 4096}));
  const InstructionId dot = b.Add(Opcode::kDot, Array(DType::kBF16, {4096, 4096}), {x, x});
  b.Attributes(dot).dot = ir::DotDimensionNumbers{{}, {}, {1}, {0}};
  const InstructionId add = b.Add(Opcode::kAdd, Array(DType::kBF16, {4096, 4096}), {dot, dot});
  const Hardware hw = *LoadHardware("h100");
  const ComputeCost c = AnalyzeCompute(b.module, hw);
  const InstructionCompute& d = c.instructions[1];
  EXPECT_EQ(d.op_class, OpClass::kMatmul);
  EXPECT_EQ(d.precision, Precision::kBf16);
  const double flops = 2.0 * 4096 * 4096 * 4096;
  const double bytes = 3.0 * 4096 * 4096 * 2;
  EXPECT_DOUBLE_EQ(d.compute_seconds, flops / (989.5e12 * 0.7));
  EXPECT_DOUBLE_EQ(d.memory_seconds, bytes / (3.35e12 * 0.8));
  EXPECT_DOUBLE_EQ(d.seconds, flops / (989.5e12 * 0.7));  // compute-bound
  const InstructionCompute& e = c.instructions[2];
  EXPECT_EQ(e.op_class, OpClass::kVector);
  EXPECT_DOUBLE_EQ(e.seconds, bytes / (3.35e12 * 0.8));  // memory-bound
  EXPECT_DOUBLE_EQ(c.seconds, d.seconds + e.seconds);
  EXPECT_DOUBLE_EQ(c.matmul_seconds, d.seconds);
  EXPECT_DOUBLE_EQ(c.memory_bound_seconds, e.seconds);
  (void)add;
}

TEST(ComputeCostTest, F32DotsRunAsTf32UnlessAskedOtherwise) {
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId x = b.Add(Opcode::kParameter, Array(DType::kF32, {1024, 1024}));
  const InstructionId dot = b.Add(Opcode::kDot, Array(DType::kF32, {1024, 1024}), {x, x});
  b.Attributes(dot).dot = ir::DotDimensionNumbers{{}, {}, {1}, {0}};
  const Hardware hw = *LoadHardware("a100");
  EXPECT_EQ(AnalyzeCompute(b.module, hw).instructions[1].precision, Precision::kTf32);
  ComputeOptions highest;
  highest.f32_dot = Precision::kF32;
  const ComputeCost c = AnalyzeCompute(b.module, hw, highest);
  EXPECT_DOUBLE_EQ(c.instructions[1].compute_seconds, 2.0 * 1024 * 1024 * 1024 / (19.5e12 * 0.7));
}

TEST(ComputeCostTest, TripCountFromBackendConfig) {
  Builder b;
  b.module.entry = b.Computation("main");
  const InstructionId w = b.Add(Opcode::kWhile, Array(DType::kS32, {}));
  b.Attributes(w).backend_config = R"({"known_trip_count":{"n":"24"},"known_init_step":{}})";
  EXPECT_EQ(KnownTripCount(b.module, b.module.instruction(w)), 24);
  b.Attributes(w).backend_config = "{}";
  EXPECT_EQ(KnownTripCount(b.module, b.module.instruction(w)), std::nullopt);
}

}  // namespace
}  // namespace memplan::simulator
