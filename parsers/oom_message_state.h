// Internal to the OOM-message parser: the state one parse carries across
// lines, small text helpers, and the reader of the buffer list
// (oom_message_buffers.cc: "Peak buffers:" and "Largest program allocations
// in hbm:" entries).
#ifndef MEMPLAN_PARSERS_OOM_MESSAGE_STATE_H_
#define MEMPLAN_PARSERS_OOM_MESSAGE_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "ir/program.h"
#include "parsers/cursor.h"
#include "parsers/human_bytes.h"
#include "parsers/instruction_names.h"
#include "parsers/line_position.h"

namespace memplan::parsers::internal {

enum class Style { kGpu, kTpu };
// Where in the message a line falls.
enum class Part {
  kBefore,       // text before the message (a traceback, log lines)
  kHeader,       // GPU: after the marker, before "BufferAssignment stats:"
  kStats,        // GPU: the stats rows
  kUsage,        // TPU: "Total hbm usage >= X:" rows
  kRequirement,  // TPU: "Program hbm requirement X:" rows
  kPersistent,   // older TPU: "Persistent allocations include some or all of:" rows
  kOtherRows,    // older TPU: "HBM capacity X:", "Heap allocator status:" rows
  kBuffers,      // "Peak buffers:" / "Largest program allocations in hbm:"
  kAfter,        // text after the last buffer
};

struct OomState : LinePosition {
  ir::Program program;
  ir::StatedCategoryBytes stats;
  bool any_stat = false;
  int64_t stated_bytes = 0;  // all stated totals, kept below kMaxTotalBytes
  int64_t buffer_bytes = 0;  // all buffer sizes, likewise
  bool any_rounded_stat = false;
  std::string_view rounded_example;
  Style style = Style::kGpu;
  Part part = Part::kBefore;

  // A log prefix ("2020-05-04 09:05:40.719745: E ... xla_util.cc:76] ")
  // repeated on every line: its first two characters, when the marker's
  // line had one.
  std::string_view log_prefix_start;

  int64_t current = -1;  // index into program.values of the open buffer
  // What the message says of each value's instruction, by index into
  // program.values: its name ("Buffer 3" when it names none) and facts.
  struct BufferInstruction {
    std::string_view name;
    InstructionFacts facts;
  };
  std::vector<BufferInstruction> instructions;
  bool size_seen = false;
  HumanBytes printed_size;  // the open buffer's "Size:"
  absl::flat_hash_set<int64_t> buffer_numbers;
  int64_t rounded_buffers = 0;
  std::optional<int64_t> trying_to_allocate;
  std::map<std::string_view, int64_t> allocation_types;  // TPU
  bool more_messages_warned = false;

  void Warn(std::string_view kind, const char* at) { WarnAt(program.diagnostics, kind, at); }
};

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

inline bool AllOf(std::string_view s, char c) {
  return !s.empty() && s.find_first_not_of(c) == std::string_view::npos;
}

inline std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A line of the buffer list: a new buffer ("Buffer 3:" / "1. Size: ..."),
// or the open buffer's size, shape, operator, allocation type or label.
absl::Status ParseBufferLine(OomState& state, Cursor c);

// Ends the open buffer (if any): checks its size was given and records it.
// `at` locates errors.
absl::Status CloseBuffer(OomState& state, const char* at);

}  // namespace memplan::parsers::internal

#endif  // MEMPLAN_PARSERS_OOM_MESSAGE_STATE_H_
