#include "simulator/compute_cost.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "simulator/library_call.h"

namespace memplan::simulator {
namespace {

using ir::Instruction;
using ir::InstructionId;
using ir::Opcode;

bool IsCommunication(Opcode op) {
  switch (op) {
    case Opcode::kAllGather: case Opcode::kAllGatherStart: case Opcode::kAllGatherDone:
    case Opcode::kAllReduce: case Opcode::kAllReduceStart: case Opcode::kAllReduceDone:
    case Opcode::kAllToAll: case Opcode::kRaggedAllToAll: case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveReduce: case Opcode::kSend: case Opcode::kSendDone:
    case Opcode::kRecv: case Opcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

bool IsFree(Opcode op) {
  switch (op) {
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kGetTupleElement:
    case Opcode::kTuple: case Opcode::kBitcast: case Opcode::kAfterAll:
    case Opcode::kAddDependency: case Opcode::kDomain: case Opcode::kOptimizationBarrier:
    case Opcode::kPartitionId: case Opcode::kReplicaId:
      return true;
    default:
      return false;
  }
}

Precision PrecisionOf(ir::DType t, const ComputeOptions& options) {
  switch (t) {
    case ir::DType::kF64: case ir::DType::kC128:
      return Precision::kF64;
    case ir::DType::kF32: case ir::DType::kC64:
      return options.f32_dot;
    case ir::DType::kBF16:
      return Precision::kBf16;
    case ir::DType::kF16:
      return Precision::kF16;
    case ir::DType::kF8E5M2: case ir::DType::kF8E4M3: case ir::DType::kF8E4M3FN:
    case ir::DType::kF8E4M3B11FNUZ: case ir::DType::kF8E5M2FNUZ: case ir::DType::kF8E4M3FNUZ:
    case ir::DType::kF8E3M4: case ir::DType::kF8E8M0FNU: case ir::DType::kF4E2M1FN:
      return Precision::kFp8;
    case ir::DType::kS8: case ir::DType::kU8: case ir::DType::kS4: case ir::DType::kU4:
      return Precision::kInt8;
    default:
      return Precision::kF32;
  }
}

class Analyzer {
 public:
  Analyzer(const ir::Module& module, const Hardware& hw, const ComputeOptions& options)
      : module_(module), hw_(hw), options_(options), costs_(module) {}

  // The first dot or convolution inside a fusion (depth first), if any.
  const Instruction* MatmulInside(const Instruction& i, int depth = 0) const {
    if (i.opcode == Opcode::kDot || i.opcode == Opcode::kConvolution) return &i;
    if (i.opcode != Opcode::kFusion || depth > 64) return nullptr;
    for (const ir::CalledComputation& c : i.calls) {
      if (!module_.contains(c.computation)) continue;
      for (InstructionId id : module_.computation(c.computation).instructions) {
        if (const Instruction* m = MatmulInside(module_.instruction(id), depth + 1)) return m;
      }
    }
    return nullptr;
  }

  // Adds a leaf instruction's time, run `scale` times, to the class totals.
  void Account(const InstructionCompute& c, double scale) {
    if (c.op_class == OpClass::kControl) return;  // its parts were accounted
    // A leaf's executed counts are XLA's, but for a library GEMM's.
    if (c.op_class != OpClass::kCollective && c.op_class != OpClass::kNone &&
        (c.seconds > 0 || c.executed_flops > 0 || c.executed_bytes > 0 || c.xla.transcendentals > 0)) {
      executed_.push_back({c.instruction, c.op_class, scale, c.seconds, c.executed_flops,
                           c.xla.transcendentals, c.executed_bytes});
    }
    if (c.op_class == OpClass::kMatmul) matmul_seconds_ += scale * c.seconds;
    if (c.seconds > 0 && c.memory_seconds >= c.compute_seconds) {
      memory_bound_seconds_ += scale * c.seconds;
    }
    transcendentals_ += scale * c.xla.transcendentals;
  }

  // `scale`: how many times the enclosing loops run this instruction.
  InstructionCompute Time(const Instruction& i, int depth, double scale) {
    InstructionCompute out;
    out.instruction = i.id;
    out.xla = costs_.Cost(i.id);
    out.executed_flops = out.xla.flops;
    out.executed_bytes = out.xla.bytes_accessed;
    if (IsFree(i.opcode)) return out;
    if (IsCommunication(i.opcode)) {
      out.op_class = OpClass::kCollective;
      return out;
    }
    if (i.opcode == Opcode::kCustomCall || out.xla.unknown > 0) out.op_class = OpClass::kUnknown;
    if (depth < 64 && (i.opcode == Opcode::kWhile || i.opcode == Opcode::kCall ||
                       i.opcode == Opcode::kConditional || i.opcode == Opcode::kAsyncStart)) {
      return Control(i, depth, scale, out);
    }
    if (i.opcode == Opcode::kCustomCall) {
      if (std::optional<LibraryCall> call = LibraryCallCost(module_, i)) {
        ++library_calls_;
        return LibraryMatmul(*call, out);
      }
      return out;
    }
    const Instruction* matmul = MatmulInside(i);
    if (matmul != nullptr) {
      out.op_class = OpClass::kMatmul;
      const ir::Instruction* lhs = !matmul->operands.empty() && module_.contains(matmul->operands[0])
                                       ? &module_.instruction(matmul->operands[0])
                                       : nullptr;
      out.precision = PrecisionOf(lhs != nullptr ? lhs->shape->dtype : ir::DType::kF32, options_);
    } else if (out.xla.flops > 0 || out.xla.transcendentals > 0) {
      out.op_class = out.op_class == OpClass::kUnknown ? OpClass::kUnknown : OpClass::kVector;
    } else if (out.op_class != OpClass::kUnknown) {
      out.op_class = OpClass::kMemory;
    }
    const Efficiency& e = hw_.efficiency;
    const double vector_rate = hw_.PeakFlops(Precision::kF32) * e.vector;
    if (out.op_class == OpClass::kMatmul) {
      out.compute_seconds = out.xla.flops / (hw_.PeakFlops(out.precision) * e.matmul);
    } else {
      out.compute_seconds = out.xla.flops / vector_rate;
    }
    out.compute_seconds += out.xla.transcendentals * options_.flops_per_transcendental / vector_rate;
    out.memory_seconds = out.xla.bytes_accessed / (hw_.hbm_bandwidth * e.memory);
    out.seconds = std::max(out.compute_seconds, out.memory_seconds);
    return out;
  }

  // A cuBLAS GEMM or cuDNN convolution custom-call (simulator/library_call.h):
  // a matmul with the dot's or convolution's FLOPs and bytes, which XLA's
  // counts (out.xla) leave at 0, at its operand type's rate.
  InstructionCompute LibraryMatmul(const LibraryCall& call, InstructionCompute out) const {
    out.op_class = OpClass::kMatmul;
    out.precision = PrecisionOf(call.operand_dtype, options_);
    out.executed_flops = call.flops;
    out.executed_bytes = call.bytes_accessed;
    const Efficiency& e = hw_.efficiency;
    out.compute_seconds = call.flops / (hw_.PeakFlops(out.precision) * e.matmul);
    out.memory_seconds = call.bytes_accessed / (hw_.hbm_bandwidth * e.memory);
    out.seconds = std::max(out.compute_seconds, out.memory_seconds);
    return out;
  }

  // While, call, conditional: the time of what they run, loops times their
  // trip count.
  InstructionCompute Control(const Instruction& i, int depth, double scale,
                             InstructionCompute out) {
    out.op_class = OpClass::kControl;
    const bool account = !accounting_off_;
    auto run = [&](ir::ComputationId c, double times, InstructionCompute& into) {
      if (!module_.contains(c)) return;
      for (InstructionId id : module_.computation(c).instructions) {
        const InstructionCompute inner = Time(module_.instruction(id), depth + 1, scale * times);
        into.compute_seconds += times * inner.compute_seconds;
        into.memory_seconds += times * inner.memory_seconds;
        into.seconds += times * inner.seconds;
        into.executed_flops += times * inner.executed_flops;
        into.executed_bytes += times * inner.executed_bytes;
        if (account) {
          Account(inner, scale * times);
          unknown_trip_counts_ += inner.trip_count_known ? 0 : 1;
        }
      }
    };
    out.executed_flops = 0;
    out.executed_bytes = 0;
    if (i.opcode == Opcode::kWhile) {
      const std::optional<int64_t> trips = KnownTripCount(module_, i);
      out.trip_count_known = trips.has_value();
      out.trip_count = trips.value_or(1);
      for (const ir::CalledComputation& c : i.calls) {
        // The condition runs once more than the body.
        const double times = static_cast<double>(out.trip_count) +
                             (c.role == ir::CallRole::kWhileCondition && trips ? 1.0 : 0.0);
        run(c.computation, times, out);
      }
    } else if (i.opcode == Opcode::kConditional) {
      // The slowest branch (its parts are not split into the class totals).
      const bool was_off = accounting_off_;
      accounting_off_ = true;
      for (const ir::CalledComputation& c : i.calls) {
        InstructionCompute branch = out;
        branch.compute_seconds = branch.memory_seconds = branch.seconds = 0;
        branch.executed_flops = branch.executed_bytes = 0;
        run(c.computation, 1.0, branch);
        if (branch.seconds >= out.seconds) {
          out.seconds = branch.seconds;
          out.compute_seconds = branch.compute_seconds;
          out.memory_seconds = branch.memory_seconds;
          out.executed_flops = branch.executed_flops;
          out.executed_bytes = branch.executed_bytes;
        }
      }
      accounting_off_ = was_off;
      if (account) {
        executed_.push_back({i.id, OpClass::kControl, scale, out.seconds, out.executed_flops, 0,
                             out.executed_bytes});
      }
    } else {
      for (const ir::CalledComputation& c : i.calls) run(c.computation, 1.0, out);
    }
    return out;
  }

  ComputeCost Run() {
    ComputeCost cost;
    cost.xla = costs_.ModuleCost();
    const ir::Computation* entry = module_.entry_computation();
    if (entry == nullptr) return cost;
    for (InstructionId id : entry->instructions) {
      InstructionCompute c = Time(module_.instruction(id), 0, 1.0);
      Account(c, 1.0);
      if (!c.trip_count_known) ++unknown_trip_counts_;
      cost.seconds += c.seconds;
      cost.executed_flops += c.executed_flops;
      cost.executed_bytes += c.executed_bytes;
      cost.instructions.push_back(c);
    }
    cost.executed_transcendentals = transcendentals_;
    cost.matmul_seconds = matmul_seconds_;
    cost.memory_bound_seconds = memory_bound_seconds_;
    cost.unknown_trip_counts = unknown_trip_counts_;
    cost.library_calls = library_calls_;
    cost.executed = std::move(executed_);
    const analyzer::StepPhases phases = analyzer::ClassifyStepPhases(module_);
    cost.phases.training = phases.training;
    for (ExecutedInstruction& e : cost.executed) {
      e.phase = phases.at(e.instruction);
      PhaseCompute& p = cost.phases.of(e.phase);
      p.seconds += e.executions * e.seconds;
      p.flops += e.executions * e.flops;
      p.bytes_accessed += e.executions * e.bytes_accessed;
    }
    return cost;
  }

 private:
  const ir::Module& module_;
  const Hardware& hw_;
  const ComputeOptions& options_;
  HloCostAnalysis costs_;
  double matmul_seconds_ = 0;
  double memory_bound_seconds_ = 0;
  double transcendentals_ = 0;  // executed
  int64_t unknown_trip_counts_ = 0;
  int64_t library_calls_ = 0;
  bool accounting_off_ = false;
  std::vector<ExecutedInstruction> executed_;
};

}  // namespace

std::string_view OpClassName(OpClass c) {
  switch (c) {
    case OpClass::kNone:
      return "none";
    case OpClass::kMatmul:
      return "matmul";
    case OpClass::kVector:
      return "vector";
    case OpClass::kMemory:
      return "memory";
    case OpClass::kCollective:
      return "collective";
    case OpClass::kControl:
      return "control";
    case OpClass::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::optional<int64_t> KnownTripCount(const ir::Module& module, const ir::Instruction& i) {
  const std::string_view config = module.attributes(i).backend_config;
  const size_t key = config.find("known_trip_count");
  if (key == std::string_view::npos) return std::nullopt;
  const size_t n = config.find("\"n\"", key);
  if (n == std::string_view::npos) return std::nullopt;
  size_t at = config.find_first_of("0123456789", n + 3);
  if (at == std::string_view::npos) return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(config.data() + at, config.data() + config.size(), value);
  if (ec != std::errc() || value < 0) return std::nullopt;
  return value;
}

ComputeCost AnalyzeCompute(const ir::Module& module, const Hardware& hw,
                           const ComputeOptions& options) {
  return Analyzer(module, hw, options).Run();
}

}  // namespace memplan::simulator
