#include "ir/diagnostics.h"

#include "ir/strings.h"

namespace memplan::ir {

void Diagnostics::Warn(std::string_view kind, std::string_view location) {
  Warn(kind, [&] { return std::string(location); });
}

void Diagnostics::Warn(std::string_view kind,
                       absl::FunctionRef<std::string()> location) {
  if (auto it = index_by_kind_.find(ToAbsl(kind)); it != index_by_kind_.end()) {
    ++warnings_[it->second].count;
    return;
  }
  index_by_kind_.emplace(std::string(kind), warnings_.size());
  warnings_.push_back({std::string(kind), location(), 1});
}

int64_t Diagnostics::total() const {
  int64_t n = 0;
  for (const Warning& w : warnings_) n += w.count;
  return n;
}

}  // namespace memplan::ir
