// cuBLAS GEMM custom-calls (simulator/library_gemm.h): the dot they replace
// is counted in the executed FLOPs and the time, not in XLA's counts. The
// custom-call line is from a real H200 dump (samples/jax_gpu/mlp_w4096_bf16);
// expected values are computed by hand from its shapes.
#include <filesystem>
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "ir/strings.h"
#include "llvm/Support/JSON.h"
#include "parsers/load_program.h"
#include "simulator/compute_cost.h"
#include "simulator/hardware_loader.h"
#include "simulator/library_gemm.h"
#include "tests/test_util.h"

namespace memplan::simulator {
namespace {

// A bf16 [4096,4096] x [4096,4096] GEMM as XLA's GPU backend writes it.
constexpr std::string_view kGemm =
    R"hlo(%custom-call.7 = (bf16[4096,4096]{1,0}, s8[33554432]{0}) custom-call(%x.1, %params_0_.1), custom_call_target="__cublas$lt$matmul", metadata={op_name="jit(step)/jvp()/dot_general" scheduling_name="custom-call.7" stack_frame_id=5}, backend_config={"device_type":"DEVICE_TYPE_INVALID","force_earliest_schedule":false,"gemm_backend_config":{"alpha_imag":0,"alpha_real":1,"autotune_workspace_size":"33554432","beta":0,"damax_output":false,"dot_dimension_numbers":{"lhs_batch_dimensions":[],"lhs_contracting_dimensions":["1"],"rhs_batch_dimensions":[],"rhs_contracting_dimensions":["0"]},"epilogue":"DEFAULT","grad_x":false,"grad_y":false,"lhs_stride":"16777216","precision_config":{"algorithm":"ALG_UNSET","operand_precision":["DEFAULT","DEFAULT"]},"rhs_stride":"16777216","scale_mode":0,"selected_algorithm":"0"},"operation_queue_id":"0","reification_cost":[]})hlo";

using Parsed = test::ParsedHloModule;

// An entry reading x.1 and params_0_.1 whose root is `line`.
std::unique_ptr<Parsed> Module(std::string_view line) {
  return test::ParseHloModule(
      "gemm.hlo", StrCat("HloModule m\n\nENTRY %main (a: bf16[4096,4096], b: bf16[4096,4096]) -> bf16[4096,4096] {\n"
                         "  %x.1 = bf16[4096,4096]{1,0} parameter(0)\n"
                         "  %params_0_.1 = bf16[4096,4096]{1,0} parameter(1)\n  ",
                         line, "\n  ROOT %r = bf16[4096,4096]{1,0} get-tuple-element(%custom-call.7), index=0\n}\n"));
}

constexpr double kN = 4096;

// kGemm with its first `from` replaced by `to`.
std::string Replaced(std::string_view from, std::string_view to) {
  std::string line(kGemm);
  const size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? line : line.replace(at, from.size(), to);
}

TEST(LibraryGemm, CountsTheDotItReplaces) {
  auto p = Module(kGemm);
  ASSERT_TRUE(p->status.ok()) << p->status;
  const std::optional<LibraryCall> gemm = CublasGemm(p->module, p->Named("custom-call.7"));
  ASSERT_TRUE(gemm.has_value());
  EXPECT_EQ(gemm->flops, 2 * kN * kN * kN);
  // Reads two bf16 operands, writes the bf16 result; the s8 workspace is not the dot's.
  EXPECT_EQ(gemm->bytes_accessed, 3 * kN * kN * 2);
  EXPECT_EQ(gemm->operand_dtype, ir::DType::kBF16);
  // Not a GEMM: a parameter, and a custom-call of another target.
  EXPECT_FALSE(CublasGemm(p->module, p->Named("x.1")).has_value());
  auto other = Module(Replaced("__cublas$lt$matmul", "__cudnn$convForward"));
  ASSERT_TRUE(other->status.ok()) << other->status;
  EXPECT_FALSE(CublasGemm(other->module, other->Named("custom-call.7")).has_value());
}

TEST(LibraryGemm, ConfigsThatGiveNoDot) {
  // A contracting dimension the lhs does not have; no dimension numbers; a
  // dimension that is not a number.
  for (const std::string& line :
       {Replaced(R"("lhs_contracting_dimensions":["1"])", R"("lhs_contracting_dimensions":["2"])"),
        Replaced(R"("dot_dimension_numbers")", R"("dot_dimension_numberz")"),
        Replaced(R"("lhs_contracting_dimensions":["1"])", R"("lhs_contracting_dimensions":["x"])")}) {
    auto p = Module(line);
    ASSERT_TRUE(p->status.ok()) << p->status;
    EXPECT_FALSE(CublasGemm(p->module, p->Named("custom-call.7")).has_value()) << line;
  }
  // Dimensions written as numbers read as strings do.
  auto p = Module(Replaced(R"("lhs_contracting_dimensions":["1"])", R"("lhs_contracting_dimensions":[1])"));
  ASSERT_TRUE(p->status.ok());
  ASSERT_TRUE(CublasGemm(p->module, p->Named("custom-call.7")).has_value());
}

TEST(LibraryGemm, TimedAsAMatmulOutsideXlasCounts) {
  auto p = Module(kGemm);
  ASSERT_TRUE(p->status.ok()) << p->status;
  absl::StatusOr<Hardware> hw = LoadHardware("h200");
  ASSERT_TRUE(hw.ok()) << hw.status();
  const ComputeCost cost = AnalyzeCompute(p->module, *hw, ComputeOptions());
  EXPECT_EQ(cost.xla.flops, 0);  // as XLA's cost_analysis() counts a custom-call
  EXPECT_EQ(cost.executed_flops, 2 * kN * kN * kN);
  const double expected = 2 * kN * kN * kN / (hw->PeakFlops(Precision::kBf16) * hw->efficiency.matmul);
  EXPECT_DOUBLE_EQ(cost.matmul_seconds, expected);
  EXPECT_DOUBLE_EQ(cost.seconds, expected);
}

// The whole step as compiled on the H200: three layers of width 4096, batch
// 4096; forward, two weight gradients... by hand: 3 forward GEMMs, 3
// weight-gradient GEMMs, 2 input-gradient GEMMs (none for the input), each
// 2 * 4096^3 FLOPs, all eight cuBLAS custom-calls.
TEST(LibraryGemm, MlpStepOnTheH200CountsItsEightGemms) {
  absl::StatusOr<parsers::LoadedProgram> loaded =
      parsers::LoadProgram(test::SourcePath("samples/jax_gpu/mlp_w4096_bf16"), {});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const ir::Module& module = loaded->program.module;
  int gemms = 0;
  double gemm_flops = 0;
  for (const ir::Instruction& i : module.instructions()) {
    if (std::optional<LibraryCall> g = CublasGemm(module, i)) {
      ++gemms;
      gemm_flops += g->flops;
    }
  }
  EXPECT_EQ(gemms, 8);
  EXPECT_EQ(gemm_flops, 8 * 2 * kN * kN * kN);
  absl::StatusOr<Hardware> hw = LoadHardware("h200");
  ASSERT_TRUE(hw.ok());
  const ComputeCost cost = AnalyzeCompute(module, *hw, ComputeOptions());
  EXPECT_GE(cost.executed_flops, gemm_flops);
  EXPECT_LT(cost.executed_flops, gemm_flops * 1.001);  // the rest is elementwise
}

}  // namespace
}  // namespace memplan::simulator
