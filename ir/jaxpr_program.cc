#include "ir/jaxpr_program.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/jaxpr_copies.h"
#include "ir/jaxpr_cpu_bf16.h"
#include "ir/jaxpr_dot_fold.h"
#include "ir/status_macros.h"

namespace memplan::ir {
namespace {

// Instructions that define no buffer of their own: they pass on (a part
// of) their operand's. A loop's state is its initial tuple's buffers (XLA
// aliases them), a dynamic-update-slice writes into its operand in place,
// and a reshape is a bitcast.
bool Forwards(const Instruction& inst, const Module& module) {
  switch (inst.opcode) {
    case Opcode::kGetTupleElement:
    case Opcode::kTuple:
    case Opcode::kWhile:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kReshape:
      return true;
    case Opcode::kParameter:
      return inst.computation != module.entry;
    default:
      return false;
  }
}

// Whether `user` passes on the buffer of its operand `k` (a fused
// instruction reads its operands where its consumer runs).
bool ForwardsOperand(const Instruction& user, size_t k, const Module& module, const std::vector<bool>& fused) {
  if (fused[static_cast<size_t>(user.id.value())]) return true;
  if (!Forwards(user, module)) return false;
  return user.opcode != Opcode::kDynamicUpdateSlice || k == 0;
}

bool IsLoopFusible(Opcode opcode) {
  switch (opcode) {
    case Opcode::kAbs: case Opcode::kAdd: case Opcode::kAnd: case Opcode::kAtan2: case Opcode::kCbrt:
    case Opcode::kCeil: case Opcode::kClamp: case Opcode::kCompare: case Opcode::kConvert: case Opcode::kCos:
    case Opcode::kDivide: case Opcode::kErf: case Opcode::kExp: case Opcode::kExpm1: case Opcode::kFloor:
    case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kMultiply: case Opcode::kNegate: case Opcode::kNot:
    case Opcode::kOr: case Opcode::kPower: case Opcode::kReducePrecision: case Opcode::kRemainder:
    case Opcode::kRsqrt: case Opcode::kSelect: case Opcode::kSign: case Opcode::kSin: case Opcode::kSqrt:
    case Opcode::kSubtract: case Opcode::kTan: case Opcode::kTanh: case Opcode::kXor: case Opcode::kBroadcast:
    case Opcode::kIota:
      return true;
    default:
      return false;
  }
}

// XLA's loop fusion, roughly: an elementwise result (or broadcast) read by
// one instruction only, itself elementwise or a reduction, of the same
// computation, is computed inside its consumer and never stored.
std::vector<bool> FusedIntoConsumer(const Module& module, const std::vector<InstructionId>& sequence) {
  std::vector<int32_t> user_count(module.instruction_count(), 0);
  std::vector<InstructionId> user(module.instruction_count());
  for (InstructionId id : sequence) {
    for (InstructionId op : module.instruction(id).operands) {
      ++user_count[static_cast<size_t>(op.value())];
      user[static_cast<size_t>(op.value())] = id;
    }
  }
  std::vector<bool> fused(module.instruction_count(), false);
  for (InstructionId id : sequence) {
    const Instruction& inst = module.instruction(id);
    const size_t i = static_cast<size_t>(id.value());
    if (!IsLoopFusible(inst.opcode) || inst.is_root || user_count[i] != 1) continue;
    const Instruction& consumer = module.instruction(user[i]);
    if (consumer.computation != inst.computation) continue;
    if (IsLoopFusible(consumer.opcode) || consumer.opcode == Opcode::kReduce) fused[i] = true;
  }
  return fused;
}

// XLA's HloLiveRange order: a loop's condition and body, a conditional's
// branches, flattened before the instruction that runs them.
void Flatten(const Module& module, ComputationId c, std::vector<InstructionId>* sequence) {
  for (InstructionId id : module.computation(c).instructions) {
    const Instruction& inst = module.instruction(id);
    if (inst.opcode == Opcode::kWhile) {
      for (CallRole role : {CallRole::kWhileCondition, CallRole::kWhileBody}) {
        for (const CalledComputation& call : inst.calls) {
          if (call.role == role) Flatten(module, call.computation, sequence);
        }
      }
    } else if (inst.opcode == Opcode::kConditional || inst.opcode == Opcode::kCall) {
      for (const CalledComputation& call : inst.calls) Flatten(module, call.computation, sequence);
    }
    sequence->push_back(id);
  }
}

// Per instruction: the last step its buffers are read, through forwarding
// tuples and get-tuple-elements; a loop body's or branch's root until its
// caller; the entry root until `last`.
std::vector<ScheduleStep> LastUse(const Module& module, const std::vector<InstructionId>& sequence,
                                  const std::vector<bool>& fused,
                                  const std::vector<ScheduleStep>& step, ScheduleStep last) {
  const size_t n = module.instruction_count();
  // (user, operand number) per instruction.
  std::vector<std::vector<std::pair<InstructionId, size_t>>> users(n);
  for (InstructionId id : sequence) {
    const Instruction& inst = module.instruction(id);
    for (size_t k = 0; k < inst.operands.size(); ++k) {
      users[static_cast<size_t>(inst.operands[k].value())].emplace_back(id, k);
    }
  }
  std::vector<ScheduleStep> end(n, -1);
  for (auto it = sequence.rbegin(); it != sequence.rend(); ++it) {
    const Instruction& inst = module.instruction(*it);
    const size_t i = static_cast<size_t>(it->value());
    ScheduleStep e = step[i];
    for (const auto& [u, k] : users[i]) {
      const size_t j = static_cast<size_t>(u.value());
      e = std::max(e, ForwardsOperand(module.instruction(u), k, module, fused) ? end[j] : step[j]);
    }
    // The entry's result lives to the end; a body's or branch's result is
    // copied into its loop state or conditional result when it ends.
    if (inst.is_root && inst.computation == module.entry) e = last;
    end[i] = e;
  }
  return end;
}

// The (instruction, index) that defines each output leaf of the entry root.
std::set<std::pair<int64_t, int64_t>> OutputLeaves(const Module& module) {
  std::set<std::pair<int64_t, int64_t>> out;
  const Instruction& root = module.instruction(module.entry_computation()->root);
  // The buffer an output is: through reshapes and in-place updates to
  // their operand, through get-tuple-elements of tuples and of loops (whose
  // state is their initial tuple) to the element.
  auto resolve = [&](InstructionId x) {
    for (int hops = 0; hops < 1 << 20; ++hops) {
      const Instruction& inst = module.instruction(x);
      if ((inst.opcode == Opcode::kReshape || inst.opcode == Opcode::kDynamicUpdateSlice) &&
          !inst.operands.empty()) {
        x = inst.operands[0];
        continue;
      }
      if (inst.opcode != Opcode::kGetTupleElement || inst.operands.empty()) break;
      const Instruction* of = &module.instruction(inst.operands[0]);
      if (of->opcode == Opcode::kWhile && !of->operands.empty()) of = &module.instruction(of->operands[0]);
      const int64_t k = module.attributes(inst).tuple_index;
      if (of->opcode == Opcode::kTuple && k >= 0 && k < static_cast<int64_t>(of->operands.size())) {
        x = of->operands[static_cast<size_t>(k)];
        continue;
      }
      return std::make_pair(of->id.value(), k);
    }
    return std::make_pair(x.value(), int64_t{-1});
  };
  if (root.opcode == Opcode::kTuple) {
    for (InstructionId op : root.operands) out.insert(resolve(op));
  } else {
    out.insert(resolve(root.id));
  }
  return out;
}

// Greedy offsets in one temp allocation: each buffer, by start, at the
// lowest offset free of the buffers live beside it. Returns the size.
int64_t PackOffsets(std::vector<Value*>& temps) {
  std::sort(temps.begin(), temps.end(), [](const Value* a, const Value* b) {
    return std::make_pair(a->live_range->start, a->id.value()) < std::make_pair(b->live_range->start, b->id.value());
  });
  std::vector<const Value*> active;
  int64_t size = 0;
  for (Value* v : temps) {
    active.erase(std::remove_if(active.begin(), active.end(),
                                [&](const Value* a) { return a->live_range->end < v->live_range->start; }),
                 active.end());
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (const Value* a : active) taken.emplace_back(a->offset, a->offset + a->size);
    std::sort(taken.begin(), taken.end());
    int64_t offset = 0;
    for (const auto& [lo, hi] : taken) {
      if (offset + v->size <= lo) break;
      offset = std::max(offset, hi);
    }
    v->offset = offset;
    size = std::max(size, offset + v->size);
    active.push_back(v);
  }
  return size;
}

// An output allocation temporaries may share: the output's first step,
// whether an elementwise instruction makes it, and until when the
// temporaries placed so far hold it.
struct OutputSlot {
  Allocation* allocation;
  ScheduleStep output_start;
  bool elementwise = false;
  ScheduleStep busy_until = -1;
};

void PlaceInSlot(OutputSlot& slot, Value* v) {
  slot.busy_until = std::max(slot.busy_until, v->live_range->end);
  v->allocation = slot.allocation->id;
  v->offset = 0;
  slot.allocation->values.push_back(v->id);
}

// XLA's in-place sharing: an elementwise output is written over a
// same-sized temporary it reads last (the temporary dies at the output's
// step). Each such slot takes the first such temporary (temps by start),
// which holds it from its start; others may use it only before then.
// Returns the temporaries not placed.
std::vector<Value*> ShareWithOutputs(std::vector<Value*> temps, std::vector<OutputSlot>& slots) {
  std::vector<bool> taken(temps.size(), false);
  for (OutputSlot& slot : slots) {
    if (!slot.elementwise) continue;
    for (size_t t = 0; t < temps.size(); ++t) {
      Value* v = temps[t];
      if (taken[t] || v->size != slot.allocation->size || v->live_range->end != slot.output_start) continue;
      taken[t] = true;
      PlaceInSlot(slot, v);
      slot.output_start = v->live_range->start;
      slot.busy_until = -1;
      break;
    }
  }
  std::vector<Value*> rest;
  for (size_t t = 0; t < temps.size(); ++t) {
    if (!taken[t]) rest.push_back(temps[t]);
  }
  return rest;
}

// XLA's buffer assignment puts a temporary into an output's allocation
// when it dies before that output is written and fits there (with
// share_operands, after ShareWithOutputs). Each temporary, by start, takes
// the smallest such allocation free of the temporaries already in it.
// Returns the temporaries left over.
std::vector<Value*> PlaceInOutputs(std::vector<Value*> temps, bool share_operands, Program* program) {
  std::vector<OutputSlot> slots;
  for (Allocation& a : program->allocations) {
    if (!a.maybe_live_out || a.is_entry_parameter() || a.values.size() != 1) continue;
    const Value& out = program->values[static_cast<size_t>(a.values.front().value())];
    const Opcode opcode = program->module.instruction(out.instruction).opcode;
    const bool elementwise = IsLoopFusible(opcode) && opcode != Opcode::kBroadcast && opcode != Opcode::kIota;
    if (out.live_range) slots.push_back({&a, out.live_range->start, elementwise});
  }
  // Bounded work: past this many (temporary, slot) pairs nothing is placed.
  if (slots.empty() || temps.size() * slots.size() > (size_t{1} << 26)) return temps;
  std::sort(slots.begin(), slots.end(), [](const OutputSlot& a, const OutputSlot& b) {
    return std::make_pair(a.allocation->size, a.allocation->id.value()) <
           std::make_pair(b.allocation->size, b.allocation->id.value());
  });
  std::sort(temps.begin(), temps.end(), [](const Value* a, const Value* b) {
    return std::make_pair(a->live_range->start, a->id.value()) < std::make_pair(b->live_range->start, b->id.value());
  });
  if (share_operands) temps = ShareWithOutputs(std::move(temps), slots);
  std::vector<Value*> left;
  for (Value* v : temps) {
    OutputSlot* chosen = nullptr;
    for (OutputSlot& slot : slots) {
      if (slot.allocation->size < v->size) continue;
      if (v->live_range->end < slot.output_start && slot.busy_until < v->live_range->start) {
        chosen = &slot;
        break;
      }
    }
    if (chosen == nullptr) {
      left.push_back(v);
      continue;
    }
    PlaceInSlot(*chosen, v);
  }
  for (OutputSlot& slot : slots) std::sort(slot.allocation->values.begin(), slot.allocation->values.end());
  return left;
}

}  // namespace

void DonateJaxprArguments(const std::vector<bool>& donated, Module* module) {
  module->header.input_output_aliases.clear();
  module->header.buffer_donors.clear();
  const Computation* entry = module->entry_computation();
  if (entry == nullptr) return;
  const Instruction& root = module->instruction(entry->root);
  std::vector<const Shape*> outputs;
  if (root.shape->IsTuple()) {
    for (const Shape& s : root.shape->tuple_elements) outputs.push_back(&s);
  } else {
    outputs.push_back(root.shape.get());
  }
  std::vector<bool> taken(outputs.size(), false);
  for (size_t p = 0; p < entry->parameters.size() && p < donated.size(); ++p) {
    if (!donated[p] || !entry->parameters[p].valid()) continue;
    const Shape& shape = module->instruction(entry->parameters[p]).shape;
    bool paired = false;
    for (size_t k = 0; k < outputs.size() && !paired; ++k) {
      if (taken[k] || outputs[k]->dtype != shape.dtype || outputs[k]->dims != shape.dims) continue;
      taken[k] = true;
      paired = true;
      InputOutputAlias alias;
      if (root.shape->IsTuple()) alias.output_index = {static_cast<int64_t>(k)};
      alias.parameter_number = static_cast<int64_t>(p);
      module->header.input_output_aliases.push_back(std::move(alias));
    }
    if (!paired) module->header.buffer_donors.push_back({static_cast<int64_t>(p), {}});
  }
}

namespace {

// Where each instruction runs in the flattened schedule and when its
// result is last read.
struct JaxprSteps {
  std::vector<ScheduleStep> step;  // by instruction
  std::vector<ScheduleStep> end;   // by instruction: last use
  std::vector<bool> fused;         // by instruction: folded into its consumer
  ScheduleStep last = 0;
};

JaxprSteps ScheduleJaxprProgram(const JaxprProgramOptions& options, Program& program) {
  const Module& m = program.module;
  std::vector<InstructionId>& sequence = program.schedule.instructions;
  Flatten(m, m.entry, &sequence);
  JaxprSteps steps;
  steps.step.assign(m.instruction_count(), 0);
  for (size_t s = 0; s < sequence.size(); ++s) {
    steps.step[static_cast<size_t>(sequence[s].value())] = static_cast<ScheduleStep>(s);
  }
  steps.last = sequence.empty() ? 0 : static_cast<ScheduleStep>(sequence.size() - 1);
  program.schedule.max_time = steps.last;
  program.has_live_ranges = true;
  steps.fused = options.fuse_elementwise ? FusedIntoConsumer(m, sequence)
                                         : std::vector<bool>(m.instruction_count(), false);
  steps.end = LastUse(m, sequence, steps.fused, steps.step, steps.last);
  return steps;
}

// True when `inst` holds no buffer of its own in the jaxpr program: its
// result is another's (get-tuple-element, reshape, in-place update, while),
// a constant, or a nested computation's parameter or tuple.
bool HoldsNoBuffer(const Module& m, const Instruction& inst) {
  switch (inst.opcode) {
    case Opcode::kGetTupleElement:
    case Opcode::kConstant:
    case Opcode::kWhile:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kReshape:
      return true;
    case Opcode::kParameter:
      return inst.computation != m.entry;
    case Opcode::kTuple:
      return !(inst.is_root && inst.computation == m.entry);
    default:
      return false;
  }
}

// One value per array the scheduled instructions make (a tuple's elements
// apart); returns, by value, whether each is an entry output.
std::vector<bool> AddJaxprValues(const JaxprSteps& steps, Program& program) {
  const Module& m = program.module;
  const std::set<std::pair<int64_t, int64_t>> outputs = OutputLeaves(m);
  auto add_value = [&](const Instruction& inst, ShapeIndex index, const Shape& shape, bool output) {
    Value v;
    v.id = ValueId(static_cast<int64_t>(program.values.size()));
    v.instruction = inst.id;
    v.index = std::move(index);
    v.shape = shape;
    v.size = ByteSizeOf(shape);
    v.shape_text = program.Intern(ShapeToString(shape, false));
    const size_t i = static_cast<size_t>(inst.id.value());
    const bool entry_parameter = inst.opcode == Opcode::kParameter;
    v.live_range = LiveRange{entry_parameter ? 0 : steps.step[i],
                             output || entry_parameter ? steps.last
                                                       : std::max(steps.step[i], steps.end[i])};
    program.values.push_back(std::move(v));
  };
  std::vector<bool> is_output;
  for (InstructionId id : program.schedule.instructions) {
    const Instruction& inst = m.instruction(id);
    const bool entry_root = inst.is_root && inst.computation == m.entry;
    if (steps.fused[static_cast<size_t>(id.value())] && outputs.count({id.value(), -1}) == 0) continue;
    if (HoldsNoBuffer(m, inst)) continue;
    if (!inst.shape->IsTuple() || inst.opcode == Opcode::kTuple) {
      add_value(inst, {}, inst.shape, entry_root);
      is_output.push_back(entry_root || outputs.count({id.value(), -1}) > 0);
      continue;
    }
    for (size_t k = 0; k < inst.shape->tuple_elements.size(); ++k) {
      const Shape& element = inst.shape->tuple_elements[k];
      if (!element.IsArray()) continue;
      const bool output = outputs.count({id.value(), static_cast<int64_t>(k)}) > 0;
      add_value(inst, {static_cast<int64_t>(k)}, element, output);
      is_output.push_back(output);
    }
  }
  return is_output;
}

// Parameters and outputs get allocations of their own; temps share one,
// packed by live range, after those the outputs can hold are placed there.
void AllocateJaxprValues(const std::vector<bool>& is_output, bool share_operands, Program& program) {
  const Module& m = program.module;
  std::vector<Value*> temps;
  for (size_t v = 0; v < program.values.size(); ++v) {
    Value& value = program.values[v];
    const Instruction& inst = m.instruction(value.instruction);
    if (inst.opcode != Opcode::kParameter && !is_output[v]) {
      temps.push_back(&value);
      continue;
    }
    Allocation a;
    a.id = AllocationId(static_cast<int64_t>(program.allocations.size()));
    a.size = value.size;
    if (inst.opcode == Opcode::kParameter) {
      a.parameter_number = m.attributes(inst).parameter_number;
      a.parameter_shape_text = value.shape_text;
    }
    a.maybe_live_out = is_output[v];
    a.values = {value.id};
    value.allocation = a.id;
    program.allocations.push_back(std::move(a));
  }
  temps = PlaceInOutputs(std::move(temps), share_operands, &program);
  if (!temps.empty()) {
    Allocation a;
    a.id = AllocationId(static_cast<int64_t>(program.allocations.size()));
    a.is_preallocated_temp = true;
    a.size = PackOffsets(temps);
    for (Value* v : temps) {
      v->allocation = a.id;
      a.values.push_back(v->id);
    }
    std::sort(a.values.begin(), a.values.end());
    program.allocations.push_back(std::move(a));
  }
  // Donated parameters the outputs reuse.
  for (const InputOutputAlias& alias : m.header.input_output_aliases) {
    for (Allocation& a : program.allocations) {
      if (a.parameter_number == alias.parameter_number) a.maybe_live_out = true;
    }
  }
}

}  // namespace

absl::StatusOr<Program> BuildJaxprProgram(const JaxprModule& jaxpr, const JaxprProgramOptions& options) {
  ASSIGN_OR_RETURN(Module module, LowerJaxpr(jaxpr, options.lowering));
  Program program = Program::Named(jaxpr.source_name);
  program.input_format = "jaxpr";
  program.assignment_source = AssignmentSource::kSynthesised;
  program.source_files = {jaxpr.source_name};
  program.module = std::move(module);
  DonateJaxprArguments(options.donated, &program.module);
  if (options.fold_dot_transposes) FoldTransposesIntoDots(&program.module);
  if (options.copy_donated_parameters) CopyDonatedParameters(&program.module);
  if (options.cpu_bf16_in_f32) ComputeBf16InF32(&program.module);
  const JaxprSteps steps = ScheduleJaxprProgram(options, program);
  AllocateJaxprValues(AddJaxprValues(steps, program), options.share_output_operands, program);
  return program;
}

}  // namespace memplan::ir
