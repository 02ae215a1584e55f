// Compute time of a program on one device: each instruction's roofline,
//   time = max(flops / (peak(precision) * efficiency(class)),
//              bytes accessed / (HBM bandwidth * efficiency(memory)))
// over XLA's FLOP and byte counts (simulator/hlo_cost.h). Loops run their
// known trip count (backend_config "known_trip_count"); collectives are
// left to the collective model (simulator/collective_cost.h).
// docs/cost-model.md, "Compute".
#ifndef MEMPLAN_SIMULATOR_COMPUTE_COST_H_
#define MEMPLAN_SIMULATOR_COMPUTE_COST_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "analyzer/step_phases.h"
#include "ir/module.h"
#include "simulator/hardware.h"
#include "simulator/hlo_cost.h"

namespace memplan::simulator {

enum class OpClass : uint8_t {
  kNone,        // no work: parameters, constants, tuples, bitcasts
  kMatmul,      // dot, convolution, or a fusion around one
  kVector,      // flops or transcendentals on the vector units
  kMemory,      // moves bytes only: copies, transposes, slices, gathers
  kCollective,  // communication: priced by the collective model, not here
  kControl,     // while, call, conditional: the time of what they run
  kUnknown,     // custom calls, and instructions missing attributes
};
std::string_view OpClassName(OpClass c);

struct ComputeOptions {
  // What an f32 dot runs at: TF32 Tensor Cores (JAX's default precision on
  // NVIDIA GPUs) or f32 CUDA cores (precision=HIGHEST).
  Precision f32_dot = Precision::kTf32;
  // A transcendental counts as this many flops at the vector rate.
  double flops_per_transcendental = 4;
};

struct InstructionCompute {
  ir::InstructionId instruction;
  OpClass op_class = OpClass::kNone;
  Precision precision = Precision::kF32;  // the rate its flops run at
  HloCost xla;                   // XLA's counts (loop bodies once)
  int64_t trip_count = 1;        // while: the known trip count, else 1
  bool trip_count_known = true;
  double executed_flops = 0;     // with trip counts
  double executed_bytes = 0;
  double compute_seconds = 0;    // flops side of the roofline (summed inside loops)
  double memory_seconds = 0;     // bytes side
  double seconds = 0;            // the instruction's time
};

// An instruction that does work of its own (not a while, call or
// conditional's body, which are listed instruction by instruction), with how
// many times one run of the entry executes it. A conditional is listed
// whole, at its slowest branch. What the sharded cost scales per candidate.
struct ExecutedInstruction {
  ir::InstructionId instruction;
  OpClass op_class = OpClass::kNone;
  double executions = 1;       // product of the enclosing loops' trip counts
  double seconds = 0;          // one execution
  double flops = 0;            // one execution (XLA's count)
  double transcendentals = 0;  // one execution
  double bytes_accessed = 0;   // one execution
  // Its part of a training step (analyzer/step_phases.h).
  analyzer::StepPhase phase = analyzer::StepPhase::kForward;
};

// Compute of one part of a training step, executions counted.
struct PhaseCompute {
  double seconds = 0;
  double flops = 0;
  double bytes_accessed = 0;
};

// Compute by part of a training step: forward, backward, optimizer (in
// analyzer::kStepPhases order). Where the program is no training step
// (`training` false) everything is forward.
struct PhaseSplit {
  bool training = false;
  std::array<PhaseCompute, analyzer::kNumStepPhases> phases;

  PhaseCompute& of(analyzer::StepPhase p) { return phases[static_cast<size_t>(p)]; }
  const PhaseCompute& of(analyzer::StepPhase p) const { return phases[static_cast<size_t>(p)]; }
};

struct ComputeCost {
  HloCost xla;                    // the module's totals as XLA counts them
  double executed_flops = 0;      // with loop trip counts
  double executed_transcendentals = 0;
  double executed_bytes = 0;
  double seconds = 0;             // compute time of one run of the entry
  double matmul_seconds = 0;      // of which in matmul-class instructions
  double memory_bound_seconds = 0;  // in instructions whose bytes set the time
  int64_t unknown_trip_counts = 0;  // loops counted once for want of a count
  // Custom-calls timed as the cuBLAS GEMM or cuDNN convolution they compute
  // (simulator/library_gemm.h, library_conv.h): in the executed figures,
  // not in XLA's.
  int64_t library_calls = 0;
  // The entry computation's instructions, in its order.
  std::vector<InstructionCompute> instructions;
  // Every instruction with work of its own (time, flops or bytes), in
  // execution order; their executions x seconds sum to `seconds`.
  std::vector<ExecutedInstruction> executed;
  // `executed` summed by phase: the phases' seconds sum to `seconds`.
  PhaseSplit phases;
};

// Precondition: the hardware is complete (LoadHardware's result).
ComputeCost AnalyzeCompute(const ir::Module& module, const Hardware& hw,
                           const ComputeOptions& options = {});

// The while's trip count from its backend_config ("known_trip_count":
// {"n":"16"}), if XLA wrote one.
std::optional<int64_t> KnownTripCount(const ir::Module& module, const ir::Instruction& instruction);

}  // namespace memplan::simulator

#endif  // MEMPLAN_SIMULATOR_COMPUTE_COST_H_
