#include "analyzer/source_resolution.h"

#include <algorithm>
#include <deque>

namespace memplan::analyzer {
namespace {

constexpr int kMaxStackDepth = 256;
// Edges followed before giving up: enough for nested fusions inside loop
// bodies, small enough that a pathological graph stays cheap.
constexpr int kMaxSteps = 64;

bool HasOpName(const ir::OpMetadata& m) { return !m.op_name.empty(); }

// How a step reached through a called computation's root was found: inside
// the caller when the search started at the caller's own metadata.
MetadataOrigin InsideOf(MetadataOrigin origin) {
  return origin == MetadataOrigin::kOwn ? MetadataOrigin::kInside : origin;
}

// How a step reached through an operand or a caller's operand was found.
MetadataOrigin ThroughOf(MetadataOrigin origin) {
  return origin == MetadataOrigin::kOwn ? MetadataOrigin::kThrough : origin;
}

}  // namespace

OriginResolver::OriginResolver(const ir::Module& module) : module_(module), call_graph_(module) {}

ValueOrigin OriginResolver::Resolve(ir::InstructionId start, const ir::ShapeIndex& index) const {
  ValueOrigin out;
  if (!module_.contains(start)) return out;
  // Breadth first, so the nearest instruction with metadata wins; within one
  // instruction, the ways through in the order NextSteps lists them.
  std::deque<Step> pending{{start, index, MetadataOrigin::kOwn}};
  std::vector<std::pair<ir::InstructionId, ir::ShapeIndex>> seen;
  for (int steps = 0; steps < kMaxSteps && !pending.empty(); ++steps) {
    Step step = std::move(pending.front());
    pending.pop_front();
    auto key = std::make_pair(step.id, step.index);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(std::move(key));
    const ir::OpMetadata& m = module_.instruction(step.id).metadata;
    if (out.op == nullptr && HasOpName(m)) {
      out.op = &m;
      out.op_instruction = step.id;
      out.op_origin = step.origin;
    }
    if (out.source == nullptr && HasSource(module_, m)) {
      out.source = &m;
      out.source_instruction = step.id;
      out.source_origin = step.origin;
    }
    if (!out.argument.valid() && IsEntryParameter(step.id)) out.argument = step.id;
    if (out.op != nullptr && out.source != nullptr) break;
    for (Step& next : NextSteps(step)) pending.push_back(std::move(next));
  }
  if ((out.op == nullptr || out.source == nullptr) && !out.argument.valid()) {
    ResolveFromUsers(start, out);
  }
  return out;
}

void OriginResolver::ResolveFromUsers(ir::InstructionId start, ValueOrigin& out) const {
  std::deque<ir::InstructionId> pending{start};
  std::vector<ir::InstructionId> seen{start};
  for (int steps = 0; steps < kMaxSteps && !pending.empty(); ++steps) {
    const ir::InstructionId id = pending.front();
    pending.pop_front();
    for (ir::InstructionId user : call_graph_.Users(id)) {
      if (std::find(seen.begin(), seen.end(), user) != seen.end()) continue;
      seen.push_back(user);
      const ir::OpMetadata& m = module_.instruction(user).metadata;
      if (out.op == nullptr && HasOpName(m)) {
        out.op = &m;
        out.op_instruction = user;
        out.op_origin = MetadataOrigin::kUser;
      }
      if (out.source == nullptr && HasSource(module_, m)) {
        out.source = &m;
        out.source_instruction = user;
        out.source_origin = MetadataOrigin::kUser;
      }
      if (out.op != nullptr && out.source != nullptr) return;
      pending.push_back(user);
    }
  }
}

std::vector<OriginResolver::Step> OriginResolver::NextSteps(const Step& step) const {
  const ir::Instruction& instruction = module_.instruction(step.id);
  std::vector<Step> next;
  AddCalledRoots(instruction, step, &next);
  // A fusion, call, loop or conditional stands for what its computations
  // compute; their parameters lead back to its operands, so the operands are
  // not searched beside the body (a nearer operand would win over the body's
  // own metadata).
  if (!next.empty()) return next;
  switch (instruction.opcode) {
    case ir::Opcode::kTuple:
      if (!step.index.empty()) {
        AddOperand(instruction, static_cast<size_t>(step.index.front()),
                   ir::ShapeIndex(step.index.begin() + 1, step.index.end()), step, &next);
        return next;
      }
      break;
    case ir::Opcode::kGetTupleElement: {
      const int64_t element = module_.attributes(instruction).tuple_index;
      if (element >= 0) {
        ir::ShapeIndex at{element};
        at.insert(at.end(), step.index.begin(), step.index.end());
        AddOperand(instruction, 0, std::move(at), step, &next);
        return next;
      }
      break;
    }
    case ir::Opcode::kParameter:
      AddParameterSources(instruction, step, &next);
      return next;
    default:
      break;
  }
  // Anything else XLA made without metadata (a convert, copy, bitcast or
  // transpose it inserted) stands for what it was made from: its operands,
  // in order; same-shaped pass-throughs keep the index.
  const bool keeps_index = instruction.opcode == ir::Opcode::kCopy ||
                           instruction.opcode == ir::Opcode::kBitcast ||
                           instruction.opcode == ir::Opcode::kOptimizationBarrier ||
                           instruction.opcode == ir::Opcode::kWhile;
  for (size_t k = 0; k < instruction.operands.size(); ++k) {
    AddOperand(instruction, k, keeps_index ? step.index : ir::ShapeIndex(), step, &next);
  }
  return next;
}

void OriginResolver::AddOperand(const ir::Instruction& instruction, size_t k, ir::ShapeIndex at,
                                const Step& step, std::vector<Step>* next) const {
  if (k < instruction.operands.size() && module_.contains(instruction.operands[k])) {
    next->push_back({instruction.operands[k], std::move(at), ThroughOf(step.origin)});
  }
}

void OriginResolver::AddCalledRoots(const ir::Instruction& instruction, const Step& step,
                                    std::vector<Step>* next) const {
  for (const ir::CalledComputation& call : instruction.calls) {
    if (call.role == ir::CallRole::kWhileCondition || !module_.contains(call.computation)) {
      continue;
    }
    const ir::InstructionId root = module_.computation(call.computation).root;
    if (module_.contains(root)) next->push_back({root, step.index, InsideOf(step.origin)});
  }
}

void OriginResolver::AddParameterSources(const ir::Instruction& parameter, const Step& step,
                                         std::vector<Step>* next) const {
  if (!module_.contains(parameter.computation)) return;
  const int64_t number = module_.attributes(parameter).parameter_number;
  for (ir::InstructionId caller : call_graph_.Callers(parameter.computation)) {
    const ir::Instruction& c = module_.instruction(caller);
    // A loop body's or condition's parameter holds what the body's root
    // wrote into the same element on the iteration before (else the
    // loop's init). The condition's own root is a predicate, not the
    // loop state.
    if (c.opcode == ir::Opcode::kWhile) {
      for (const ir::CalledComputation& call : c.calls) {
        if (call.role != ir::CallRole::kWhileBody || !module_.contains(call.computation)) {
          continue;
        }
        const ir::InstructionId root = module_.computation(call.computation).root;
        if (module_.contains(root) && root != step.id) {
          next->push_back({root, step.index, InsideOf(step.origin)});
        }
      }
    }
    // A loop's body and condition take the loop's one operand.
    const size_t k = c.opcode == ir::Opcode::kWhile ? 0 : static_cast<size_t>(number);
    if (number >= 0 && k < c.operands.size() && module_.contains(c.operands[k])) {
      next->push_back({c.operands[k], step.index, ThroughOf(step.origin)});
    }
  }
}

bool OriginResolver::IsEntryParameter(ir::InstructionId id) const {
  const ir::Instruction& instruction = module_.instruction(id);
  return instruction.opcode == ir::Opcode::kParameter && instruction.computation.valid() &&
         instruction.computation == module_.entry;
}

bool HasSource(const ir::Module& module, const ir::OpMetadata& metadata) {
  return !metadata.source_file.empty() || module.FindStackFrame(metadata.stack_frame_id) != nullptr;
}

SourceLocation SourceLocationOf(const ir::Module& module, const ir::OpMetadata& metadata) {
  const ir::SourceFrame* frame = module.FindStackFrame(metadata.stack_frame_id);
  if (!metadata.source_file.empty()) {
    return {metadata.source_file, metadata.source_line,
            frame != nullptr ? frame->function : std::string_view()};
  }
  if (frame != nullptr) return {frame->file, frame->line, frame->function};
  return {};
}

std::vector<const ir::SourceFrame*> CallStackOf(const ir::Module& module,
                                                const ir::OpMetadata& metadata) {
  std::vector<const ir::SourceFrame*> stack;
  int64_t id = metadata.stack_frame_id;
  for (int depth = 0; depth < kMaxStackDepth; ++depth) {
    const ir::SourceFrame* frame = module.FindStackFrame(id);
    if (frame == nullptr) break;
    stack.push_back(frame);
    if (frame->parent_id == id) break;
    id = frame->parent_id;
  }
  std::reverse(stack.begin(), stack.end());
  return stack;
}

}  // namespace memplan::analyzer
