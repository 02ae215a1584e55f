#include "bench/synthetic_program.h"

#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <utility>
#include <vector>

namespace memplan::bench {
namespace {

ir::Shape F32(std::vector<int64_t> dims) {
  ir::Shape s;
  s.dtype = ir::DType::kF32;
  s.dims = std::move(dims);
  return s;
}


ir::HloSharding Tiled(std::vector<int64_t> dims, bool replicate_last) {
  return ir::HloSharding::Tiled(ir::TileAssignment::Iota(std::move(dims)), replicate_last);
}

}  // namespace

Generated GenerateResidualMlp(int64_t layers, int64_t batch, int64_t width) {
  Generated g;
  ir::Program& p = g.program;
  p.module_name = "synthetic_residual_mlp";
  ir::Module& m = p.module;
  ir::Computation entry;
  entry.name = "main";
  const ir::ComputationId cid = m.AddComputation(entry);
  m.entry = cid;
  std::vector<ir::InstructionId> order;
  auto add = [&](ir::Opcode op, ir::Shape shape, std::vector<ir::InstructionId> operands) {
    ir::Instruction i;
    i.computation = cid;
    i.opcode = op;
    i.opcode_text = ir::OpcodeName(op);
    i.name = "i";
    i.shape = std::move(shape);
    i.operands = std::move(operands);
    const ir::InstructionId id = m.AddInstruction(i);
    m.mutable_computation(cid).instructions.push_back(id);
    order.push_back(id);
    return id;
  };
  auto param = [&](ir::Shape shape) {
    const ir::InstructionId id = add(ir::Opcode::kParameter, std::move(shape), {});
    m.mutable_attributes(id).parameter_number = g.parameters;
    m.mutable_computation(cid).parameters.push_back(id);
    ++g.parameters;
    return id;
  };
  ir::InstructionId h = param(F32({batch, width}));
  for (int64_t l = 0; l < layers; ++l) {
    const ir::InstructionId w = param(F32({width, width}));
    const ir::InstructionId d = add(ir::Opcode::kDot, F32({batch, width}), {h, w});
    ir::DotDimensionNumbers dn;
    dn.lhs_contracting = {1};
    dn.rhs_contracting = {0};
    m.mutable_attributes(d).dot = dn;
    const ir::InstructionId a = add(ir::Opcode::kAdd, F32({batch, width}), {d, h});
    h = add(ir::Opcode::kMaximum, F32({batch, width}), {a, a});
  }
  m.mutable_computation(cid).root = h;
  m.mutable_instruction(h).is_root = true;
  // Buffer assignment: parameters in their own allocations, the rest in one
  // temp arena, each value live from its step to its last use's.
  p.schedule.instructions = order;
  p.schedule.max_time = static_cast<ir::ScheduleStep>(order.size());
  p.has_live_ranges = true;
  ir::Allocation temp;
  temp.id = ir::AllocationId(0);
  temp.is_preallocated_temp = true;
  std::vector<ir::ScheduleStep> last_use(order.size(), 0);
  for (size_t s = 0; s < order.size(); ++s) {
    for (ir::InstructionId op : m.instruction(order[s]).operands) {
      last_use[static_cast<size_t>(op.value())] = static_cast<ir::ScheduleStep>(s);
    }
  }
  for (size_t s = 0; s < order.size(); ++s) {
    const ir::Instruction& i = m.instruction(order[s]);
    ir::Value v;
    v.id = ir::ValueId(static_cast<int64_t>(s));
    v.instruction = i.id;
    v.shape = i.shape;
    v.size = ir::ByteSizeOf(i.shape);
    v.live_range = ir::LiveRange{static_cast<ir::ScheduleStep>(s),
                                 std::max<ir::ScheduleStep>(last_use[s], s)};
    if (i.opcode == ir::Opcode::kParameter) {
      ir::Allocation a;
      a.id = ir::AllocationId(static_cast<int64_t>(p.allocations.size()) + 1);
      a.size = v.size;
      a.parameter_number = m.attributes(i.id).parameter_number;
      v.allocation = a.id;
      a.values.push_back(v.id);
      p.allocations.push_back(a);
    } else {
      v.allocation = temp.id;
      v.offset = temp.size;
      temp.size += v.size;
      temp.values.push_back(v.id);
    }
    p.values.push_back(std::move(v));
  }
  p.allocations.insert(p.allocations.begin(), temp);
  return g;
}

ir::ResolvedPlan RotationCandidate(int k, int64_t parameters) {
  ir::ResolvedPlan plan;
  const char* labels[] = {"dp8", "tp8_col", "tp8_row", "dp2_tp4", "fsdp8", "replicated"};
  plan.label = labels[k % 6];
  if (k % 6 == 3) {
    plan.mesh.axes = {{"dp", 2}, {"tp", 4}};
  } else {
    plan.mesh.axes = {{k % 6 == 0 ? "dp" : k % 6 == 4 ? "fsdp" : "tp", 8}};
  }
  for (int64_t i = 0; i < parameters; ++i) {
    ir::ArgumentPlan a;
    a.parameter = i;
    switch (k % 6) {
      case 0: a.sharding = i == 0 ? Tiled({8, 1}, false) : ir::HloSharding::Replicated(); break;
      case 1: a.sharding = i == 0 ? ir::HloSharding::Replicated() : Tiled({1, 8}, false); break;
      case 2: a.sharding = i == 0 ? ir::HloSharding::Replicated() : Tiled({8, 1}, false); break;
      case 3:
        a.sharding = i == 0 ? Tiled({2, 1, 4}, true)
                            : ir::HloSharding::Tiled(
                                  ir::TileAssignment::Iota({1, 4, 2}, {2, 4}, {1, 0}), true);
        break;
      case 4: a.sharding = Tiled({8, 1}, false); break;
      default: a.sharding = ir::HloSharding::Replicated(); break;
    }
    plan.arguments.push_back(std::move(a));
  }
  return plan;
}

int64_t IntFlag(int argc, char** argv, const char* name, int64_t fallback) {
  const size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') return std::atoll(argv[i] + n + 1);
  }
  return fallback;
}

}  // namespace memplan::bench
