// Recoverable input problems: counted per kind, never fatal. The first
// occurrence of each kind keeps its location so a user can find it.
#ifndef MEMPLAN_IR_DIAGNOSTICS_H_
#define MEMPLAN_IR_DIAGNOSTICS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"

namespace memplan::ir {

struct Warning {
  std::string kind;            // e.g. "unknown allocation attribute 'foo'"
  std::string first_location;  // "file:line:col" of the first occurrence
  int64_t count = 0;
};

class Diagnostics {
 public:
  // Counts one occurrence of `kind`; the first one's location is kept.
  void Warn(std::string_view kind, std::string_view location);
  // Same, computing the location only for a kind's first occurrence.
  void Warn(std::string_view kind, absl::FunctionRef<std::string()> location);

  // In order of first occurrence.
  const std::vector<Warning>& warnings() const { return warnings_; }
  int64_t total() const;

 private:
  std::vector<Warning> warnings_;
  absl::flat_hash_map<std::string, size_t> index_by_kind_;
};

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_DIAGNOSTICS_H_
