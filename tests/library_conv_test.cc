// cuDNN convolution custom-calls (simulator/library_conv.h): the convolution
// they compute is counted in the executed FLOPs and the time, not in XLA's
// counts. The custom-call lines are from a real H200 dump
// (samples/jax_gpu/conv_grad); expected values are derived by hand from its
// shapes, below.
//
// XLA's convolution rule: 2 * input features * output features * batch *
// the (output position, kernel tap) pairs of each spatial dimension that
// land on the input array (not on the window's padding). conv_grad is
// scripts/gen_jax_samples.py's program: x f32[16,32,32,3], four 3x3 NHWC
// "SAME" convolutions 3->64 (stride 1), 64->64 (stride 2), 64->128
// (stride 1), 128->128 (stride 2), ReLU after each, value_and_grad with
// respect to the four kernels and x. In the dump:
//   L0: 32x32 input, window pad=1_1: 32 outputs x 3 taps, less the first
//       output's tap 0 and the last's tap 2 (on padding): 94 pairs per
//       dimension. 2 * 3 * 64 * 16 * 94 * 94 = 54,288,384.
//   L1: XLA pads the input in a fusion first (%loop_pad_fusion,
//       f32[16,33,33,64]: SAME for stride 2 on 32 is pad 0 low, 1 high) and
//       the call's window has no padding: 16 outputs x 3 taps = 48 pairs,
//       all on the (padded) array. 2 * 64 * 64 * 16 * 48 * 48 = 301,989,888.
//   L2: 16x16, pad=1_1: 16 * 3 - 2 = 46 pairs. 2 * 64 * 128 * 16 * 46 * 46
//       = 554,696,704.
//   L3: padded to 17x17, stride 2, 8 outputs x 3 taps = 24 pairs.
//       2 * 128 * 128 * 16 * 24 * 24 = 301,989,888.
// Each of the 4 layers has a forward call, a backward-filter call (its
// kernel's gradient) and a backward-input call (the gradient of its input:
// x for L0, the padded input for L1 and L3). A backward pass makes the same
// multiply-adds as its forward convolution, paired differently (each
// (output position, tap, input feature, output feature) product feeds one
// sum in either direction), so each counts its layer's figure: 12 calls,
// 3 * (54,288,384 + 301,989,888 + 554,696,704 + 301,989,888)
// = 3 * 1,212,964,864 = 3,638,894,592 FLOPs.
#include <filesystem>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "ir/strings.h"
#include "parsers/load_program.h"
#include "simulator/compute_cost.h"
#include "simulator/hardware_loader.h"
#include "simulator/library_conv.h"
#include "simulator/library_gemm.h"
#include "tests/test_util.h"

namespace memplan::simulator {
namespace {

constexpr std::string_view kConfig =
    R"(backend_config={"cudnn_conv_backend_config":{"activation_mode":"kNone","algorithm":{"algo_id":"68","is_cudnn_frontend":false,"math_type":"DEFAULT_MATH","tuning_knobs":{"13":"0","18":"1","2":"5","25":"0","27":"1","28":"1"},"workspace_size":"590091"},"conv_result_scale":1,"leakyrelu_alpha":0,"side_input_scale":0},"device_type":"DEVICE_TYPE_INVALID","force_earliest_schedule":false,"operation_queue_id":"0","reification_cost":[]})";

// L1's three calls as the H200 dump writes them (the backend_config of one
// of them for all three: it does not bear on the count).
constexpr std::string_view kForward =
    R"hlo(%cudnn-conv.7 = (f32[16,16,16,64]{3,2,1,0}, u8[0]{0}) custom-call(%loop_pad_fusion, %wrapped_transpose.1), window={size=3x3 stride=2x2}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convForward", metadata={op_name="jit(conv_grad)/jvp()/conv_general_dilated" scheduling_name="cudnn-conv.7" stack_frame_id=6}, )hlo";
constexpr std::string_view kBackwardInput =
    R"hlo(%cudnn-conv-bw-input.8 = (f32[16,33,33,64]{3,2,1,0}, u8[131]{0}) custom-call(%loop_select_fusion.2, %wrapped_transpose.1), window={size=3x3 stride=2x2}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBackwardInput", metadata={op_name="jit(conv_grad)/transpose(jvp())/conv_general_dilated" scheduling_name="cudnn-conv-bw-input.8" stack_frame_id=6}, )hlo";
constexpr std::string_view kBackwardFilter =
    R"hlo(%cudnn-conv-bw-filter.7 = (f32[64,3,3,64]{3,2,1,0}, u8[590091]{0}) custom-call(%loop_pad_fusion, %loop_select_fusion.2), window={size=3x3 stride=2x2}, dim_labels=b01f_o01i->b01f, custom_call_target="__cudnn$convBackwardFilter", metadata={op_name="jit(conv_grad)/transpose(jvp())/conv_general_dilated" scheduling_name="cudnn-conv-bw-filter.7" stack_frame_id=6}, )hlo";

constexpr double kL1Flops = 2.0 * 64 * 64 * 16 * 48 * 48;  // 301,989,888
// f32 bytes of L1's padded input, kernel and output (its gradient alike).
constexpr double kInputBytes = 16.0 * 33 * 33 * 64 * 4;
constexpr double kKernelBytes = 64.0 * 3 * 3 * 64 * 4;
constexpr double kOutputBytes = 16.0 * 16 * 16 * 64 * 4;

using Parsed = test::ParsedHloModule;

// An entry with L1's padded input, kernel, output gradient and a bias as
// parameters, then `lines` (each given kConfig), then a constant root.
std::unique_ptr<Parsed> Module(std::initializer_list<std::string> lines) {
  std::string body;
  for (const std::string& line : lines) body += StrCat("  ", line, kConfig, "\n");
  return test::ParseHloModule(
      "conv.hlo",
      StrCat("HloModule m\n\nENTRY %main (a: f32[16,33,33,64], b: f32[64,3,3,64], c: f32[16,16,16,64], "
             "d: f32[64]) -> f32[] {\n"
             "  %loop_pad_fusion = f32[16,33,33,64]{3,2,1,0} parameter(0)\n"
             "  %wrapped_transpose.1 = f32[64,3,3,64]{3,2,1,0} parameter(1)\n"
             "  %loop_select_fusion.2 = f32[16,16,16,64]{3,2,1,0} parameter(2)\n"
             "  %bias = f32[64]{0} parameter(3)\n",
             body, "  ROOT %r = f32[] constant(0)\n}\n"));
}

// `line` with its first `from` replaced by `to`.
std::string Replaced(std::string_view line, std::string_view from, std::string_view to) {
  std::string out(line);
  const size_t at = out.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? out : out.replace(at, from.size(), to);
}

TEST(LibraryConv, EachKindCountsItsLayersConvolution) {
  auto p = Module({std::string(kForward), std::string(kBackwardInput), std::string(kBackwardFilter)});
  ASSERT_TRUE(p->status.ok()) << p->status;
  for (std::string_view name : {"cudnn-conv.7", "cudnn-conv-bw-input.8", "cudnn-conv-bw-filter.7"}) {
    const std::optional<LibraryCall> conv = CudnnConvolution(p->module, p->Named(name));
    ASSERT_TRUE(conv.has_value()) << name;
    EXPECT_EQ(conv->flops, kL1Flops) << name;
    // Each reads two of the layer's arrays and writes the third; the u8
    // scratch is not the convolution's.
    EXPECT_EQ(conv->bytes_accessed, kInputBytes + kKernelBytes + kOutputBytes) << name;
    EXPECT_EQ(conv->operand_dtype, ir::DType::kF32) << name;
  }
  EXPECT_FALSE(CudnnConvolution(p->module, p->Named("loop_pad_fusion")).has_value());
  // Not a GEMM either.
  EXPECT_FALSE(CublasGemm(p->module, p->Named("cudnn-conv.7")).has_value());
}

TEST(LibraryConv, BiasActivationForwardIsAForwardConvolution) {
  // cuDNN's fused conv + bias (+ side input) + activation: operands input,
  // kernel, bias.
  const std::string line = Replaced(Replaced(kForward, "__cudnn$convForward", "__cudnn$convBiasActivationForward"),
                                    "%wrapped_transpose.1)", "%wrapped_transpose.1, %bias)");
  auto p = Module({line});
  ASSERT_TRUE(p->status.ok()) << p->status;
  const std::optional<LibraryCall> conv = CudnnConvolution(p->module, p->Named("cudnn-conv.7"));
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->flops, kL1Flops);
  EXPECT_EQ(conv->bytes_accessed, kInputBytes + kKernelBytes + kOutputBytes + 64 * 4);
}

TEST(LibraryConv, CallsThatGiveNoConvolution) {
  // Another cuDNN target (a filter reorder), no dim_labels, one operand.
  for (const std::string& line :
       {Replaced(kForward, "__cudnn$convForward", "__cudnn$convReorderFilter"),
        Replaced(kForward, "dim_labels=b01f_o01i->b01f, ", ""),
        Replaced(kForward, "%loop_pad_fusion, %wrapped_transpose.1", "%loop_pad_fusion")}) {
    auto p = Module({line});
    ASSERT_TRUE(p->status.ok()) << p->status;
    EXPECT_FALSE(CudnnConvolution(p->module, p->Named("cudnn-conv.7")).has_value()) << line;
  }
}

TEST(LibraryConv, TimedAsAMatmulOutsideXlasCounts) {
  auto p = Module({std::string(kForward), std::string(kBackwardInput), std::string(kBackwardFilter)});
  ASSERT_TRUE(p->status.ok()) << p->status;
  absl::StatusOr<Hardware> hw = LoadHardware("h200");
  ASSERT_TRUE(hw.ok()) << hw.status();
  const ComputeOptions options;
  const ComputeCost cost = AnalyzeCompute(p->module, *hw, options);
  EXPECT_EQ(cost.xla.flops, 0);  // as XLA's cost_analysis() counts a custom-call
  EXPECT_EQ(cost.executed_flops, 3 * kL1Flops);
  // Each call: the longer of its FLOPs at the f32 matmul rate and its bytes.
  const Efficiency& e = hw->efficiency;
  const double compute = kL1Flops / (hw->PeakFlops(options.f32_dot) * e.matmul);
  const double memory = (kInputBytes + kKernelBytes + kOutputBytes) / (hw->hbm_bandwidth * e.memory);
  EXPECT_DOUBLE_EQ(cost.matmul_seconds, 3 * std::max(compute, memory));
  EXPECT_DOUBLE_EQ(cost.seconds, 3 * std::max(compute, memory));
}

constexpr double kConvGradFlops = 3 * (2.0 * 3 * 64 * 16 * 94 * 94 + 2.0 * 64 * 64 * 16 * 48 * 48 +
                                       2.0 * 64 * 128 * 16 * 46 * 46 + 2.0 * 128 * 128 * 16 * 24 * 24);
static_assert(kConvGradFlops == 3638894592.0);

// The whole conv_grad step as compiled on the H200, from the text dump and
// from the HloProto: 12 cuDNN calls, the FLOPs derived above.
TEST(LibraryConv, ConvGradOnTheH200CountsItsTwelveConvolutions) {
  const std::filesystem::path dir = test::SourcePath("samples/jax_gpu/conv_grad");
  for (const std::filesystem::path& input :
       {dir, dir / "jit_conv_grad.sm_9.0a_gpu_after_optimizations.hlo.pb"}) {
    absl::StatusOr<parsers::LoadedProgram> loaded = parsers::LoadProgram(input.string(), {});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const ir::Module& module = loaded->program.module;
    int convs = 0;
    double conv_flops = 0;
    for (const ir::Instruction& i : module.instructions()) {
      if (std::optional<LibraryCall> c = CudnnConvolution(module, i)) {
        ++convs;
        conv_flops += c->flops;
      }
    }
    EXPECT_EQ(convs, 12) << input;
    EXPECT_EQ(conv_flops, kConvGradFlops) << input;
    absl::StatusOr<Hardware> hw = LoadHardware("h200");
    ASSERT_TRUE(hw.ok());
    const ComputeCost cost = AnalyzeCompute(module, *hw, ComputeOptions());
    // XLA's counts leave the calls out; the executed FLOPs add them.
    EXPECT_EQ(cost.executed_flops, cost.xla.flops + kConvGradFlops) << input;
  }
}

}  // namespace
}  // namespace memplan::simulator
