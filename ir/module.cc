#include "ir/module.h"

#include <algorithm>
#include <cassert>

#include "ir/strings.h"

namespace memplan::ir {

InstructionId Module::AddInstruction(Instruction instruction) {
  instruction.id = InstructionId(static_cast<int64_t>(instructions_.size()));
  instructions_.push_back(std::move(instruction));
  return instructions_.back().id;
}

ComputationId Module::AddComputation(Computation computation) {
  computation.id = ComputationId(static_cast<int64_t>(computations_.size()));
  computations_.push_back(std::move(computation));
  return computations_.back().id;
}

const HloAttributes& Module::attributes(const Instruction& instruction) const {
  static const HloAttributes kNone;
  return instruction.attributes >= 0 ? attributes_[instruction.attributes] : kNone;
}

const HloAttributes& Module::attributes(InstructionId id) const {
  return attributes(instruction(id));
}

HloAttributes& Module::mutable_attributes(InstructionId id) {
  Instruction& instruction = mutable_instruction(id);
  const int32_t k = instruction.attributes;
  if (k < 0) {
    instruction.attributes = static_cast<int32_t>(attributes_.size());
    attributes_.emplace_back();
  } else if (static_cast<size_t>(k) < shared_attributes_.size() && shared_attributes_[k]) {
    instruction.attributes = static_cast<int32_t>(attributes_.size());
    attributes_.emplace_back(HloAttributes(attributes_[k]));
  }
  return attributes_[instruction.attributes];
}

void Module::ShareAttributes(InstructionId id, int32_t shared) {
  Instruction& instruction = mutable_instruction(id);
  assert(instruction.attributes >= 0 &&
         static_cast<size_t>(instruction.attributes) + 1 == attributes_.size());
  assert(shared >= 0 && shared < instruction.attributes);
  attributes_.pop_back();
  instruction.attributes = shared;
  if (shared_attributes_.size() <= static_cast<size_t>(shared)) {
    shared_attributes_.resize(attributes_.size());
  }
  shared_attributes_[shared] = true;
}

void Module::Reserve(size_t instructions, size_t computations) {
  instructions_.reserve(instructions);
  computations_.reserve(computations);
}

std::string_view Module::Intern(std::string text) {
  owned_text_.push_back(std::make_shared<const std::string>(std::move(text)));
  return *owned_text_.back();
}

bool Module::has_gap(GraphGap gap) const {
  return std::find(gaps.begin(), gaps.end(), gap) != gaps.end();
}

std::string InstructionDisplayName(const Module& module, InstructionId id,
                                   const ShapeIndex& index) {
  const std::string_view name = module.contains(id) ? module.instruction(id).name : "";
  if (index.empty()) return std::string(name);
  return StrCat(name, ShapeIndexToString(index));
}

const Shape* Subshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* at = &shape;
  for (int64_t i : index) {
    if (i < 0 || i >= static_cast<int64_t>(at->tuple_elements.size())) return nullptr;
    at = &at->tuple_elements[i];
  }
  return at;
}

}  // namespace memplan::ir
