#include "ir/program.h"

#include <algorithm>

#include "ir/strings.h"

namespace memplan::ir {

std::string Value::DisplayName() const {
  if (index.empty()) return std::string(instruction);
  return StrCat(instruction, ShapeIndexToString(index));
}

std::string_view Program::Intern(std::string s) {
  if (!interned_) interned_ = std::make_shared<std::deque<std::string>>();
  interned_->push_back(std::move(s));
  return interned_->back();
}

Program::SourceLocation Program::SourceOf(const OpMetadata& metadata) const {
  if (!metadata.source_file.empty()) return {metadata.source_file, metadata.source_line};
  if (const SourceFrame* frame = FindStackFrame(metadata.stack_frame_id)) {
    return {frame->file, frame->line};
  }
  return {};
}

const Value* Program::FindValue(ValueId id) const {
  auto it = std::lower_bound(values.begin(), values.end(), id,
                             [](const Value& v, ValueId x) { return v.id < x; });
  return it != values.end() && it->id == id ? &*it : nullptr;
}

const Allocation* Program::FindAllocation(AllocationId id) const {
  auto it = std::lower_bound(
      allocations.begin(), allocations.end(), id,
      [](const Allocation& a, AllocationId x) { return a.id < x; });
  return it != allocations.end() && it->id == id ? &*it : nullptr;
}

}  // namespace memplan::ir
