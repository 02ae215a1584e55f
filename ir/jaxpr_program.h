// A jaxpr as a Program (ir/program.h): its lowered module graph
// (ir/jaxpr_lowering.h) with the buffer assignment a compile would give
// it, so that what reads a Program (prediction under shardings, ranking,
// the memory stats) reads a jaxpr as it reads an XLA dump.
//   - schedule: the entry computation in jaxpr order, a loop's condition
//     and body flattened before the loop, a conditional's branches before
//     it (XLA's HloLiveRange order);
//   - values: every entry parameter (its own parameter allocation); every
//     array an instruction defines, except get-tuple-element, tuple,
//     constant and the parameters of loop bodies and branches (they alias
//     their operands); a loop's or conditional's outputs are values of the
//     loop (leaf by leaf); the root tuple's index table;
//   - live ranges: from the defining step to the last step reading the
//     value, through the tuples and get-tuple-elements that forward it (a
//     body's result lives until its loop); outputs until the end;
//   - allocations: one per value; outputs (and the root tuple table) are
//     maybe-live-out, the rest temps for the predictor to re-pack;
//   - donated parameters (JAX's donate_argnums) are paired with outputs as
//     JAX pairs them (ir::DonateJaxprArguments).
#ifndef MEMPLAN_IR_JAXPR_PROGRAM_H_
#define MEMPLAN_IR_JAXPR_PROGRAM_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ir/jaxpr.h"
#include "ir/jaxpr_lowering.h"
#include "ir/program.h"

namespace memplan::ir {

struct JaxprProgramOptions {
  JaxprLoweringOptions lowering;
  // Per top-level input: donated; missing entries are false.
  std::vector<bool> donated;
  // XLA's loop fusion, roughly: an elementwise result or broadcast read
  // only by one elementwise instruction or reduction of its computation
  // owns no buffer (its consumer computes it).
  bool fuse_elementwise = true;
  // XLA's algebraic simplifier: a transpose swapping the two free
  // dimensions of a canonical dot read by it alone becomes that dot with
  // its operands swapped (ir/jaxpr_dot_fold.h): the unfused weight
  // gradient, dot then transpose, is otherwise two buffers held at once.
  // Off by default until the cases it makes worse are taken apart
  // (docs/accuracy.md, "Jaxprs under shardings").
  bool fold_dot_transposes = false;
  // XLA's copy insertion: a donated parameter with a reader its output
  // does not depend on is copied first (ir/jaxpr_copies.h). Off by default
  // for the same reason as fold_dot_transposes.
  bool copy_donated_parameters = false;
  // XLA's buffer assignment: an elementwise output is written over a
  // same-sized temporary it reads last, which then lives in the output's
  // allocation (ir/jaxpr_program.cc PlaceInOutputs).
  bool share_output_operands = false;
  // XLA's CPU backend only: bf16 computed in f32, the weights dots read
  // converted to f32 first (ir/jaxpr_cpu_bf16.h). Off: other backends
  // compute bf16 as bf16.
  bool cpu_bf16_in_f32 = false;
};

// The Program of `jaxpr` (input_format "jaxpr"). Errors as LowerJaxpr's.
absl::StatusOr<Program> BuildJaxprProgram(const JaxprModule& jaxpr, const JaxprProgramOptions& options = {});

// Records `donated` entry parameters as aliases in module.header: each, in
// parameter order, takes the first output leaf not yet taken with the same
// dtype and dimensions (JAX's pairing); one with no such output is a
// buffer donor only. Replaces any aliases and donors the header had.
void DonateJaxprArguments(const std::vector<bool>& donated, Module* module);

}  // namespace memplan::ir

#endif  // MEMPLAN_IR_JAXPR_PROGRAM_H_
