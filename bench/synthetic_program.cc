#include "bench/synthetic_program.h"

#include <array>
#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <string>
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

namespace {

// Builds one entry computation in schedule order; Finish adds the buffer
// assignment (parameters in their own allocations, the rest in one temp
// arena, each value live from its step to its last use's).
class Builder {
 public:
  Builder(Generated& g, const char* name) : g_(g), m_(g.program.module) {
    g_.program.module_name = name;
    ir::Computation entry;
    entry.name = "main";
    cid_ = m_.AddComputation(entry);
    m_.entry = cid_;
  }
  ir::InstructionId Add(ir::Opcode op, ir::Shape shape, std::vector<ir::InstructionId> operands) {
    ir::Instruction i;
    i.computation = cid_;
    i.opcode = op;
    i.opcode_text = ir::OpcodeName(op);
    i.name = "i";
    i.shape = m_.InternShape(shape);
    i.operands = std::move(operands);
    const ir::InstructionId id = m_.AddInstruction(i);
    m_.mutable_computation(cid_).instructions.push_back(id);
    order_.push_back(id);
    return id;
  }
  ir::InstructionId Param(ir::Shape shape) {
    const ir::InstructionId id = Add(ir::Opcode::kParameter, std::move(shape), {});
    m_.mutable_attributes(id).parameter_number = g_.parameters;
    m_.mutable_computation(cid_).parameters.push_back(id);
    ++g_.parameters;
    return id;
  }
  // lhs [b, k] x rhs [k, n].
  ir::InstructionId Dot(ir::Shape shape, ir::InstructionId lhs, ir::InstructionId rhs) {
    const ir::InstructionId d = Add(ir::Opcode::kDot, std::move(shape), {lhs, rhs});
    ir::DotDimensionNumbers dn;
    dn.lhs_contracting = {1};
    dn.rhs_contracting = {0};
    m_.mutable_attributes(d).dot = dn;
    return d;
  }
  void Finish(ir::InstructionId root);

 private:
  Generated& g_;
  ir::Module& m_;
  ir::ComputationId cid_;
  std::vector<ir::InstructionId> order_;
};

void Builder::Finish(ir::InstructionId root) {
  ir::Program& p = g_.program;
  ir::Module& m = m_;
  const std::vector<ir::InstructionId>& order = order_;
  m.mutable_computation(cid_).root = root;
  m.mutable_instruction(root).is_root = true;
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
}

}  // namespace

Generated GenerateResidualMlp(int64_t layers, int64_t batch, int64_t width) {
  Generated g;
  Builder b(g, "synthetic_residual_mlp");
  ir::InstructionId h = b.Param(F32({batch, width}));
  for (int64_t l = 0; l < layers; ++l) {
    const ir::InstructionId w = b.Param(F32({width, width}));
    const ir::InstructionId d = b.Dot(F32({batch, width}), h, w);
    const ir::InstructionId a = b.Add(ir::Opcode::kAdd, F32({batch, width}), {d, h});
    h = b.Add(ir::Opcode::kMaximum, F32({batch, width}), {a, a});
  }
  b.Finish(h);
  return g;
}

Generated GenerateFanIn(int64_t branches, int64_t batch, int64_t width) {
  Generated g;
  Builder b(g, "synthetic_fan_in");
  const ir::InstructionId x = b.Param(F32({batch, width}));
  ir::InstructionId sum;
  for (int64_t l = 0; l < branches; ++l) {
    const ir::InstructionId w = b.Param(F32({width, width}));
    const ir::InstructionId d = b.Dot(F32({batch, width}), x, w);
    sum = b.Add(ir::Opcode::kMaximum, F32({batch, width}), {l == 0 ? d : sum, d});
  }
  b.Finish(sum);
  return g;
}

ir::ResolvedPlan ScaledCandidate(int kind, int64_t outer, int64_t tp, int64_t parameters) {
  ir::ResolvedPlan plan;
  const int k = kind % 6;
  const char* names[] = {"dp", "tp_col", "tp_row", "dp_tp", "fsdp", "replicated"};
  const int64_t n = k == 1 || k == 2 ? tp : outer;
  plan.label = k == 3 ? "dp" + std::to_string(outer) + "_tp" + std::to_string(tp)
                      : std::string(names[k]) + (k == 5 ? "" : std::to_string(n));
  if (k == 3) {
    plan.mesh.axes = {{"dp", outer}, {"tp", tp}};
  } else {
    plan.mesh.axes = {{k == 0 ? "dp" : k == 4 ? "fsdp" : "tp", n}};
  }
  // The data's sharding and the weights' (every weight alike).
  ir::HloSharding data = ir::HloSharding::Replicated();
  ir::HloSharding weight = ir::HloSharding::Replicated();
  switch (k) {
    case 0: data = Tiled({n, 1}, false); break;
    case 1: weight = Tiled({1, n}, false); break;
    case 2: weight = Tiled({n, 1}, false); break;
    case 3:
      data = Tiled({outer, 1, tp}, true);
      weight = ir::HloSharding::Tiled(
          ir::TileAssignment::Iota({1, tp, outer}, {outer, tp}, {1, 0}), true);
      break;
    case 4: data = weight = Tiled({n, 1}, false); break;
    default: break;
  }
  const int32_t data_index = plan.shardings.Intern(std::move(data));
  const int32_t weight_index = plan.shardings.Intern(std::move(weight));
  plan.arguments.resize(static_cast<size_t>(parameters));
  for (int64_t i = 0; i < parameters; ++i) {
    ir::ArgumentPlan& a = plan.arguments[static_cast<size_t>(i)];
    a.parameter = i;
    a.sharding_index = i == 0 ? data_index : weight_index;
  }
  return plan;
}

ir::ResolvedPlan RotationCandidate(int k, int64_t parameters) {
  const char* labels[] = {"dp8", "tp8_col", "tp8_row", "dp2_tp4", "fsdp8", "replicated"};
  ir::ResolvedPlan plan =
      k % 6 == 3 ? ScaledCandidate(3, 2, 4, parameters) : ScaledCandidate(k, 8, 8, parameters);
  plan.label = labels[k % 6];
  return plan;
}

namespace {

// (kind, outer, tp) of every distinct candidate, in order.
std::vector<std::array<int64_t, 3>> DistinctList() {
  std::vector<std::array<int64_t, 3>> list;
  for (int64_t n = 8; n <= 1024; n *= 2) {
    for (int64_t kind : {0, 1, 2, 4}) list.push_back({kind, n, n});
    for (int64_t a = 2; a <= n / 2; a *= 2) list.push_back({3, a, n / a});
  }
  return list;
}

}  // namespace

size_t DistinctCandidateCount() { return DistinctList().size(); }

ir::ResolvedPlan DistinctCandidate(size_t k, int64_t parameters) {
  const auto c = DistinctList().at(k);
  return ScaledCandidate(static_cast<int>(c[0]), c[1], c[2], parameters);
}

std::vector<ir::ResolvedPlan> DistinctCandidates(int64_t parameters, size_t limit) {
  std::vector<ir::ResolvedPlan> plans;
  for (size_t k = 0; k < DistinctCandidateCount() && k < limit; ++k) {
    plans.push_back(DistinctCandidate(k, parameters));
  }
  return plans;
}

int64_t IntFlag(int argc, char** argv, const char* name, int64_t fallback) {
  const size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') return std::atoll(argv[i] + n + 1);
  }
  return fallback;
}

}  // namespace memplan::bench
