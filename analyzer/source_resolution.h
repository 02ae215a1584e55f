// Which instruction's metadata stands for a value, and where in the source
// that is: the one derivation every view shares (text, JSON, HTML, DOT,
// Chrome trace, folded stacks).
//
// XLA leaves many instructions without metadata: fusions (the metadata is on
// the fused instructions), while loops and calls (on their bodies), copies,
// bitcasts, tuples and get-tuple-elements it inserts, and parameters of
// called computations. The resolver looks through them along the graph's
// edges to the nearest instruction that says where the bytes came from:
// into called computations (their roots), and back through operands (a
// tuple's element, a get-tuple-element's tuple, a parameter's caller, and
// the operands of an instruction XLA inserted).
#ifndef MEMPLAN_ANALYZER_SOURCE_RESOLUTION_H_
#define MEMPLAN_ANALYZER_SOURCE_RESOLUTION_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analyzer/call_graph.h"
#include "ir/module.h"

namespace memplan::analyzer {

// How the metadata was found.
enum class MetadataOrigin : uint8_t {
  kNone,     // nothing found
  kOwn,      // the value's defining instruction has it
  kInside,   // an instruction inside a fusion, loop body, branch or callee
  kThrough,  // the instruction a copy, bitcast, tuple, get-tuple-element or
             // called computation's parameter passes the bytes on from
  kUser,     // nothing the bytes came from says where: the nearest
             // instruction that uses them (a zero-filled loop-carried buffer
             // XLA broadcasts from a constant is named by the loop that
             // fills it)
};

// What stands for one value: the metadata with an op_name (which also gives
// op_type), and the metadata with a source location, each with the
// instruction it is on. Pointers into the module; null when none was found.
struct ValueOrigin {
  const ir::OpMetadata* op = nullptr;
  ir::InstructionId op_instruction;
  MetadataOrigin op_origin = MetadataOrigin::kNone;
  const ir::OpMetadata* source = nullptr;
  ir::InstructionId source_instruction;
  MetadataOrigin source_origin = MetadataOrigin::kNone;
  // The entry computation's parameter the bytes come from, when the search
  // reached one before it ended: arguments come from the caller, so they
  // have no source line of their own.
  ir::InstructionId argument;
};

class OriginResolver {
 public:
  // `module` must outlive the resolver.
  explicit OriginResolver(const ir::Module& module);

  // The origin of the value `index` of instruction `id` (an invalid id gives
  // an empty origin). Looks through at most a bounded number of edges:
  // first back along where the bytes came from, then, where that finds no
  // metadata and no program argument, forward to the nearest users.
  ValueOrigin Resolve(ir::InstructionId id, const ir::ShapeIndex& index) const;

 private:
  // One place to look: an instruction, the index within its shape, and how
  // it was reached.
  struct Step {
    ir::InstructionId id;
    ir::ShapeIndex index;
    MetadataOrigin origin;
  };
  // Where to look after `step`, in order of preference.
  std::vector<Step> NextSteps(const Step& step) const;
  // Appends operand `k` of `instruction` (the one `step` is at), when it
  // exists, at index `at`.
  void AddOperand(const ir::Instruction& instruction, size_t k, ir::ShapeIndex at,
                  const Step& step, std::vector<Step>* next) const;
  // Appends the roots of the computations `instruction` calls, loop
  // conditions left out.
  void AddCalledRoots(const ir::Instruction& instruction, const Step& step,
                      std::vector<Step>* next) const;
  // Appends what a called computation's `parameter` holds: each caller's
  // operand, and a loop body's root before the loop's init.
  void AddParameterSources(const ir::Instruction& parameter, const Step& step,
                           std::vector<Step>* next) const;
  // Fills what `out` still lacks from the nearest users of `start`, when
  // the bytes do not come from a program argument.
  void ResolveFromUsers(ir::InstructionId start, ValueOrigin& out) const;
  bool IsEntryParameter(ir::InstructionId id) const;

  const ir::Module& module_;
  CallGraph call_graph_;
};

// A source location: file and line, and the function where a stack frame
// names it. Empty file when unknown.
struct SourceLocation {
  std::string_view file;
  int64_t line = 0;
  std::string_view function;
};

// Where `metadata` points: its source_file/source_line, else its innermost
// stack frame's location.
SourceLocation SourceLocationOf(const ir::Module& module, const ir::OpMetadata& metadata);

// True when `metadata` says where in the source it came from.
bool HasSource(const ir::Module& module, const ir::OpMetadata& metadata);

// The call stack of `metadata`'s stack frame, outermost first (empty without
// a stack frame). Bounded in depth; a frame that is its own parent ends it.
std::vector<const ir::SourceFrame*> CallStackOf(const ir::Module& module,
                                                const ir::OpMetadata& metadata);

}  // namespace memplan::analyzer

#endif  // MEMPLAN_ANALYZER_SOURCE_RESOLUTION_H_
