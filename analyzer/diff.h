// What changed between two programs (`memplan diff OLD NEW`): the byte
// categories with their deltas, and the values that appeared, grew, shrank
// or vanished.
//
// Values are matched by what they are: their defining instruction's
// identity in the graph (its opcode, parameter number or tuple index, and
// its operands' identities, recursively; names and element types left out,
// converts and copies passed through), their own opcode and shape index.
// Values with the same key pair in id order (their position). Values of
// instructions the input does not place in the graph, and what is left, are
// then matched by (instruction name, shape index, shape text), then by
// (instruction name, shape index). So a dtype change reads as one change per
// value, renumbered instructions still match, and two formats of one
// program (its text dump and its HloProto) show no value changes.
#ifndef MEMPLAN_ANALYZER_DIFF_H_
#define MEMPLAN_ANALYZER_DIFF_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis.h"
#include "ir/program.h"

namespace memplan::analyzer {

struct CategoryDelta {
  std::string name;  // "argument", ..., "live peak"
  // Absent when the input cannot tell (a live peak without live ranges).
  std::optional<int64_t> old_bytes;
  std::optional<int64_t> new_bytes;

  std::optional<int64_t> delta() const {
    if (!old_bytes || !new_bytes) return std::nullopt;
    return *new_bytes - *old_bytes;
  }
  // (new - old) / old * 100; absent when either is unknown or old is 0.
  std::optional<double> percent() const;
};

enum class ValueChangeKind { kAppeared, kGrew, kShrank, kVanished };
// "appeared", "grew", "shrank", "vanished".
std::string_view ValueChangeKindName(ValueChangeKind kind);

struct ValueChange {
  ValueChangeKind kind = ValueChangeKind::kAppeared;
  std::string name;  // "instruction{index}"
  // The side(s) the value exists on; invalid ids for the other.
  ir::ValueId old_id;
  ir::ValueId new_id;
  std::string old_shape;  // empty on the side where it does not exist
  std::string new_shape;
  int64_t old_bytes = 0;  // 0 on the side where it does not exist
  int64_t new_bytes = 0;
  int64_t delta() const { return new_bytes - old_bytes; }
};

struct ChangeSummary {
  int64_t count = 0;
  int64_t bytes = 0;  // sum of deltas (negative for shrank and vanished)
};

struct ProgramDiff {
  struct Options {
    int top_n = 20;  // changes to list; <= 0: all
  };

  std::string old_module;
  std::string new_module;
  // argument, output, alias, temp, constant, thread-local, total allocation,
  // device footprint, live peak: in that order.
  std::vector<CategoryDelta> categories;
  // Indexed by ValueChangeKind.
  ChangeSummary summary[4];
  int64_t unchanged_values = 0;
  int64_t changed_values = 0;  // all changes, listed or not
  // The top_n changes by |delta| (largest first), then by name and ids.
  std::vector<ValueChange> changes;

  // True when no category and no value changed.
  bool Empty() const;
};

// Requires both programs' values sorted by id.
ProgramDiff DiffPrograms(const ir::Program& old_program, const Analysis& old_analysis,
                         const ir::Program& new_program, const Analysis& new_analysis,
                         const ProgramDiff::Options& options);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_DIFF_H_
