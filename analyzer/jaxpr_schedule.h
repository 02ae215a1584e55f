// A jaxpr flattened into the one sequence of steps its equations run in,
// with the buffers (values that own memory) each step defines and reads:
//   - the top-level inputs are arguments, its constvars constants;
//   - each equation's outputs are new buffers, defined at its step, read
//     until the last step that uses them; `_` outputs are dropped (dead code
//     XLA removes);
//   - calls (pjit/jit, closed_call, named_call, custom_jvp_call,
//     custom_vjp_call, remat/checkpoint, shard_map, ...) are inlined: the
//     callee's inputs are the caller's buffers and the caller's outputs are
//     the callee's, so a call adds no memory of its own;
//   - scan, while and cond are regions: a header step defines the loop's (or
//     branch's) outputs, the loop state; the body's steps follow once (one
//     iteration); the body's carry inputs are the loop state, a scan's xs
//     are per-iteration slices; operands stay live to the region's end;
//     cond's branches run one after another, each freeing its own values;
//   - every buffer is sized per device: the inputs' tiles (a sharding) carry
//     through the equations as analyzer/jaxpr_shards.h says.
#ifndef MEMPLAN_ANALYZER_JAXPR_SCHEDULE_H_
#define MEMPLAN_ANALYZER_JAXPR_SCHEDULE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/jaxpr_shards.h"
#include "ir/jaxpr.h"

namespace memplan::analyzer {

struct JaxprScheduleOptions {
  // Per top-level input, in order; missing entries are false.
  std::vector<bool> donated;
  // Per top-level input: its tiles; missing or empty entries are replicated.
  std::vector<Tiles> input_tiles;
  // false: a call is one step whose outputs are new buffers, and the
  // callee's own peak of temporaries is charged to that step
  // (JaxprStep::opaque_temp_bytes).
  bool inline_calls = true;
  // Refuse to flatten into more steps than this (inlining shared jaxprs can
  // multiply a small text into a huge schedule).
  int64_t max_steps = int64_t{1} << 22;
};

struct JaxprStep {
  ir::JaxprEqnId eqn;
  // The step of the call, loop or cond whose body holds this equation; -1
  // at top level.
  int32_t parent = -1;
  // A call not inlined: the most bytes of temporaries its callee holds.
  int64_t opaque_temp_bytes = 0;
  // Buffers the equation reads (a region's header: its operands) and
  // defines, in operand and output order. An inlined call's header reads
  // and defines nothing: its callee's steps do.
  std::vector<int32_t> reads;
  std::vector<int32_t> defines;
};

struct JaxprBuffer {
  enum class Kind : uint8_t {
    kArgument,   // a top-level input
    kConstant,   // a constvar, or a literal passed to a call
    kValue,      // an equation's output (or a literal a jaxpr returns)
    kLoopSlice,  // one iteration's slice of a scan's xs
  };
  Kind kind = Kind::kValue;
  ir::JaxprVarId var;     // the variable that defines it; invalid for a literal
  int32_t step = 0;       // defining step; 0 for arguments and constants
  int32_t last_use = 0;   // last step reading it; its own step when never read
  int64_t bytes = 0;      // per device; 0 when the aval's size is unknown
  Tiles tiles;
  int32_t argument = -1;  // the top-level input number of an argument
  bool donated = false;
  bool output = false;    // a top-level output
  // Read where no step reads it: a loop body's or branch's result, which
  // becomes the loop state or the branch's output.
  bool escapes = false;
};

struct JaxprSchedule {
  std::vector<JaxprStep> steps;
  std::vector<JaxprBuffer> buffers;
  std::vector<int32_t> arguments;  // buffer per top-level input
  std::vector<int32_t> outputs;    // buffer per top-level output
  int64_t unknown_size_buffers = 0;  // untyped or symbolic avals, counted as 0 bytes
  int64_t inlined_calls = 0;
  int64_t regions = 0;  // scan, while and cond equations
};

// The schedule of `module`'s top jaxpr. InvalidArgument when it would exceed
// options.max_steps, or calls nest deeper than ir's nesting limit allows.
absl::StatusOr<JaxprSchedule> ScheduleJaxpr(const ir::JaxprModule& module,
                                            const JaxprScheduleOptions& options);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_JAXPR_SCHEDULE_H_
